// kpc_placement.hpp: where each call of a function built for a GPU runs (`--space cuda`).
//
// A drop-in module built for a CUDA-enabled Kokkos holds each specialization twice: the host
// build (the OpenMP translation unit, compiled by the host compiler against a CPU Kokkos) and the
// device build (compiled by nvcc against the CUDA Kokkos), which may arrive later (it compiles in
// the background) or never (a construct only the host runs, no GPU in this process). The
// dispatch table of the drop-in function then holds a `placed` object for the signature: calling
// it calls one of the two. Which one is learned at the call site, per size class of the call
// (two classes per octave of the bytes its array arguments hold), as the cost guard learns
// serial against parallel (kpc::guard_site in kpc_semantics.hpp, whose learner this reuses, so
// kokkos_session.guard_sites() lists placement sites beside regions): the calls of a class
// alternate between the host and the device until each ran kGuardSamples times, then take the
// one whose best time was lower, and recheck after 64 * 2^k decided calls while the two are
// within kRecheckWithin of each other, first after up to 1024 calls otherwise (first_recheck).
// The times are whole calls, copies included: NumPy arguments are copied to the device and back by the device
// build's entry, device arrays to the host and back by the host path the runtime hands in
// (kpc.runtime.placement), so the data's place counts as the user pays for it. Before a class
// is learned the `prefer_host` side goes first: NumPy arguments prefer the host, device arrays
// the device. A failed call records nothing. `forced` (KPC_PLACEMENT=host|device) skips the
// learning. A call with device arrays returns before its kernels end (kpc_cuda.hpp: stream
// order), so a timed device call then waits for the device (`sync`, set_sync) before its time
// is taken.
//
// Included by kpc_numpy.hpp (whose define_session_functions exports _kpc_placed), after the
// pybind11 helpers it uses.
#pragma once

#include <structmember.h>

#include <memory>
#include <string>

namespace kpc {
namespace placement {

struct placed {
  PyObject_HEAD
  vectorcallfunc vectorcall;
  PyObject* host;    // the host path (a compiled function, or the runtime's copying wrapper), or null
  PyObject* device;  // the device build's function, or null until it is loaded
  PyObject* sync;    // waits for the device (a call with CUDA arrays returns before its kernels end), or null
  int forced;        // -1: learn; 0: always the host; 1: always the device
  int prefer_host;   // which side runs first while a class learns
  std::string* label;
  guard_site* site;  // never freed: the session's list of guard sites may point at it
};

// The item size of a NumPy dtype (its descriptor's layout changed in NumPy 2; pybind11 reads it
// for the NumPy it runs with from 2.12 on).
inline int64_t array_itemsize(PyObject* descr) {
#if PYBIND11_VERSION_HEX >= 0x020C0000
  if (py::detail::npy_api::get().PyArray_RUNTIME_VERSION_ < 0x12) {
    return py::detail::array_descriptor1_proxy(descr)->elsize;
  }
  return py::detail::array_descriptor2_proxy(descr)->elsize;
#else
  return py::detail::array_descriptor_proxy(descr)->elsize;
#endif
}

// Bytes held by the array arguments of a call (NumPy arrays, and objects with `nbytes`
// such as CuPy arrays); numbers count nothing. -1 with a Python error set on failure.
inline int64_t argument_bytes(PyObject* const* args, Py_ssize_t nargs) {
  int64_t total = 0;
  for (Py_ssize_t k = 0; k < nargs; ++k) {
    PyObject* value = args[k];
    if (py::detail::npy_api::get().PyArray_Check_(value)) {
      // read through NumPy's structs, as dispatch_key does: pybind11's array and dtype handles
      // cost a reference count each (about 10 ns an argument, a tenth of a 0.5 us call's hop)
      const auto* array = py::detail::array_proxy(value);
      int64_t count = 1;
      for (int d = 0; d < array->nd; ++d) count *= array->dimensions[d];
      total += count * static_cast<int64_t>(array_itemsize(array->descr));
    } else if (!PyFloat_Check(value) && !PyLong_Check(value) && !PyComplex_Check(value)) {
      // (not hasattr(__cuda_array_interface__): CuPy builds that dict on every access)
      PyObject* nbytes = PyObject_GetAttr(value, cupy_names().nbytes);
      if (nbytes == nullptr) {
        PyErr_Clear();
        continue;
      }
      const long long size = PyLong_AsLongLong(nbytes);
      Py_DECREF(nbytes);
      if (size < 0) {
        if (PyErr_Occurred()) PyErr_Clear();
        continue;
      }
      total += size;
    }
  }
  return total;
}

// The slower side is rechecked at the cost guard's pace (after 64, 128, 256, ... decided calls)
// while it was within kRecheckWithin of the faster one; beyond, first after about 16 times as many
// calls as it was slower (a power of two from 64 to kFarRecheck), so that a recheck costs at most
// about a sixteenth of the calls before it: a side several times slower (NumPy arguments copied
// to the device and back for a memory-bound kernel) costs the calls around it more than a
// recheck could win (seen: a 10^7-element copy averaged 0.72x of the host build with rechecks
// every 64 calls on the device), but a side whose samples something else slowed must not lose
// for the life of the process (seen on a GPU machine while nvcc builds of other kernels filled
// the host's cores: a 200-point Mandelbrot kept on the device at 0.20x of the openmp build, a
// 316^2 stencil at 0.01x).
constexpr double kRecheckWithin = 2.0;
constexpr int kFarRecheck = 1024;

// The first recheck of a class whose slower side took `ratio` times the faster's time.
inline int first_recheck(double ratio) {
  if (ratio <= kRecheckWithin) return kGuardRecheck;
  int first = kGuardRecheck;
  while (first < kFarRecheck && first < 16.0 * ratio) first *= 2;
  return first;
}

// Whether the learned (or learning) choice for a call of class c is the host.
inline bool choose_host(placed* self, guard_call& timing, int c) {
  guard_site& site = *self->site;
  if (!site.learned(c)) return timing.timed(c, site.learning_serially(c, self->prefer_host != 0));
  const bool host_faster = site.faster_serially(c);
  const int d = site.tick(c);
  if (!guard_site::near_recheck(d)) return host_faster;  // most calls: no ratio to work out
  const double host_ns = static_cast<double>(site.best_ns[0][c].load(std::memory_order_relaxed));
  const double device_ns = static_cast<double>(site.best_ns[1][c].load(std::memory_order_relaxed));
  switch (guard_site::recheck_at(d, first_recheck(host_faster ? device_ns / host_ns : host_ns / device_ns))) {
    case 1: return timing.timed(c, !host_faster);
    case 2: return timing.timed(c, host_faster);
    default: return host_faster;
  }
}

inline PyObject* call(PyObject* object, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  auto* self = reinterpret_cast<placed*>(object);
  if (self->device == nullptr || self->host == nullptr || self->forced >= 0) {
    PyObject* only = self->forced == 1 && self->device != nullptr ? self->device
                     : self->host != nullptr                      ? self->host
                                                                  : self->device;
    if (only == nullptr) {
      PyErr_SetString(PyExc_RuntimeError, "kpc: this placed function has neither a host nor a device build");
      return nullptr;
    }
    return PyObject_Vectorcall(only, args, nargsf, kwnames);
  }
  const int64_t bytes = argument_bytes(args, PyVectorcall_NARGS(nargsf));
  if (bytes < 0) return nullptr;
  const int c = guard_site::class_of(bytes);
  guard_call timing(*self->site);
  const bool host = choose_host(self, timing, c);
  PyObject* result = PyObject_Vectorcall(host ? self->host : self->device, args, nargsf, kwnames);
  if (result == nullptr) {
    timing.cancel();
  } else if (!host && self->sync != nullptr && timing.timing()) {
    // a timed device call counts until its kernels end, not until they are queued
    PyObject* done = PyObject_CallNoArgs(self->sync);
    if (done == nullptr) {
      timing.cancel();
      Py_DECREF(result);
      return nullptr;
    }
    Py_DECREF(done);
  }
  return result;
}

inline void dealloc(PyObject* object) {
  auto* self = reinterpret_cast<placed*>(object);
  Py_XDECREF(self->host);
  Py_XDECREF(self->device);
  Py_XDECREF(self->sync);
  PyTypeObject* type = Py_TYPE(object);
  type->tp_free(object);
  Py_DECREF(type);
}

inline PyObject* set_device(PyObject* object, PyObject* device) {
  auto* self = reinterpret_cast<placed*>(object);
  Py_XINCREF(device == Py_None ? nullptr : device);
  Py_XSETREF(self->device, device == Py_None ? nullptr : device);
  Py_RETURN_NONE;
}

inline PyObject* set_sync(PyObject* object, PyObject* sync) {
  auto* self = reinterpret_cast<placed*>(object);
  Py_XINCREF(sync == Py_None ? nullptr : sync);
  Py_XSETREF(self->sync, sync == Py_None ? nullptr : sync);
  Py_RETURN_NONE;
}

// decision(nbytes): "host", "device" or "learning" for a call whose arrays hold nbytes.
inline PyObject* decision(PyObject* object, PyObject* nbytes) {
  auto* self = reinterpret_cast<placed*>(object);
  if (self->device == nullptr || self->forced == 0) return PyUnicode_FromString("host");
  if (self->host == nullptr || self->forced == 1) return PyUnicode_FromString("device");
  const long long bytes = PyLong_AsLongLong(nbytes);
  if (bytes == -1 && PyErr_Occurred()) return nullptr;
  const int c = guard_site::class_of(bytes);
  if (!self->site->learned(c)) return PyUnicode_FromString("learning");
  return PyUnicode_FromString(self->site->faster_serially(c) ? "host" : "device");
}

// measurements(): (size class, host runs, device runs, best host ns, best device ns) per class seen.
inline PyObject* measurements(PyObject* object, PyObject*) {
  auto* self = reinterpret_cast<placed*>(object);
  py::list rows;
  for (int c = 0; c < guard_site::classes; ++c) {
    const int host = self->site->runs[0][c].load(), device = self->site->runs[1][c].load();
    if (host + device == 0) continue;
    rows.append(py::make_tuple(c, host, device, self->site->best_ns[0][c].load(), self->site->best_ns[1][c].load()));
  }
  return rows.release().ptr();
}

inline PyObject* get_host(PyObject* object, void*) {
  PyObject* host = reinterpret_cast<placed*>(object)->host;
  return Py_NewRef(host != nullptr ? host : Py_None);
}

inline PyObject* get_device(PyObject* object, void*) {
  PyObject* device = reinterpret_cast<placed*>(object)->device;
  return Py_NewRef(device != nullptr ? device : Py_None);
}

inline PyTypeObject* placed_type() {
  static PyTypeObject* type = [] {
    static PyMethodDef methods[] = {
        {"set_device", reinterpret_cast<PyCFunction>(&set_device), METH_O,
         "Hand in the device build's function (None: none); the classes learn again."},
        {"set_sync", reinterpret_cast<PyCFunction>(&set_sync), METH_O,
         "Hand in what waits for the device after a timed device call (None: nothing)."},
        {"decision", reinterpret_cast<PyCFunction>(&decision), METH_O,
         "'host', 'device' or 'learning' for a call whose array arguments hold nbytes."},
        {"measurements", reinterpret_cast<PyCFunction>(&measurements), METH_NOARGS,
         "(size class, host runs, device runs, best host ns, best device ns) per class."},
        {nullptr, nullptr, 0, nullptr}};
    static PyGetSetDef getset[] = {{"host", &get_host, nullptr, "the host path", nullptr},
                                   {"device", &get_device, nullptr, "the device build's function", nullptr},
                                   {nullptr, nullptr, nullptr, nullptr, nullptr}};
    static PyMemberDef members[] = {
        {"__vectorcalloffset__", T_PYSSIZET, static_cast<Py_ssize_t>(offsetof(placed, vectorcall)), READONLY,
         nullptr},
        {nullptr, 0, 0, 0, nullptr}};
    static PyType_Slot slots[] = {{Py_tp_dealloc, reinterpret_cast<void*>(&dealloc)},
                                  {Py_tp_call, reinterpret_cast<void*>(&PyVectorcall_Call)},
                                  {Py_tp_methods, methods},
                                  {Py_tp_getset, getset},
                                  {Py_tp_members, members},
                                  {Py_tp_doc, const_cast<char*>("A kpc function placed per call on the host "
                                                                "or the device (kpc_placement.hpp).")},
                                  {0, nullptr}};
    static PyType_Spec spec = {"kpc.placed", sizeof(placed), 0, Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL,
                               slots};
    return reinterpret_cast<PyTypeObject*>(PyType_FromSpec(&spec));
  }();
  return type;
}

// _kpc_placed(host, device, label, prefer_host, forced): a new placed function.
inline PyObject* make_placed(PyObject*, PyObject* const* args, Py_ssize_t nargs) try {
  if (nargs != 5) {
    PyErr_SetString(PyExc_TypeError, "_kpc_placed(host, device, label, prefer_host, forced)");
    return nullptr;
  }
  PyTypeObject* type = placed_type();
  if (type == nullptr) return nullptr;
  auto* self = PyObject_New(placed, type);
  if (self == nullptr) return nullptr;
  self->vectorcall = &call;
  self->host = args[0] == Py_None ? nullptr : Py_NewRef(args[0]);
  self->device = args[1] == Py_None ? nullptr : Py_NewRef(args[1]);
  self->sync = nullptr;
  self->label = new std::string(py::str(args[2]).cast<std::string>());
  self->prefer_host = PyObject_IsTrue(args[3]);
  self->forced = static_cast<int>(PyLong_AsLong(args[4]));
  self->site = new guard_site(self->label->c_str());
  return reinterpret_cast<PyObject*>(self);
} catch (...) {
  return translate_current_exception();
}

}  // namespace placement
}  // namespace kpc
