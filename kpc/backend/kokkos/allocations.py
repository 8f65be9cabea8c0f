"""C++ of array allocations: NumPy arrays on the host, stack or per-thread pooled scratch inside regions."""

from __future__ import annotations

from kpc.ir import nodes as n
from kpc.ir.queries import expr_names, nested_bodies, statements, used_names
from kpc.passes.aliasing import is_view_expr, view_base_name
from kpc.ir.types import INT64, ArrayType

from .cxx import BackendError, identifier, literal, scalar_type

# Elements of an array allocated inside a parallel loop: it lives on the thread's stack.
SCRATCH_ELEMENTS = 256

ALLOCATORS = {"np.empty", "np.zeros", "np.ones", "np.full", "np.empty_like", "np.zeros_like", "np.ones_like",
              "np.full_like", "numpy.empty", "numpy.zeros", "numpy.ones", "numpy.full"}


def is_allocation(value) -> bool:
    """Whether ``value`` allocates a new array (``np.zeros(n)``, ``np.empty_like(x)``, ...)."""
    return isinstance(value, n.Call) and value.kind == "numpy" and value.func in ALLOCATORS


def constant_int(expr):
    """The value of an integer literal or module constant, else None."""
    value = getattr(expr, "value", None) if isinstance(expr, (n.Const, n.GlobalConst)) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


class AllocationEmitter:
    """The allocation statements of a ``FunctionEmitter`` (``x = np.zeros(n)`` and the like)."""

    def allocate(self, s, name, call, t) -> None:
        if self.variant != "host" or self.in_region:
            self.allocate_scratch(s, name, call, t)
            return
        rebound = name in self.rebound
        if not (self.declares(s, name) or rebound) or not isinstance(t, ArrayType):
            raise BackendError(f"array {name!r} must be allocated once, before its uses", s.loc)
        func = call.func.replace("numpy.", "np.")
        args = list(call.args)
        if func.endswith("_like"):
            source = self.expr.operand(args[0])
            shape = [f"kpc::extent({source}, {k})" for k in range(t.ndim)]
        else:
            shape_expr = args[0] if args else call.kwargs.get("shape")
            if isinstance(shape_expr, n.TupleExpr):
                shape = [self.expr.emit(e, INT64) for e in shape_expr.elements]
            elif isinstance(shape_expr, n.Attribute) and shape_expr.attr == "shape":
                source = self.expr.operand(shape_expr.value)
                shape = [f"kpc::extent({source}, {k})" for k in range(t.ndim)]
            else:
                shape = [self.expr.emit(shape_expr, INT64)]
        ct = scalar_type(t.dtype)
        owner = f"kpc_own_{name}"
        lhs = self.name_text(name)
        declare = "" if rebound else "auto "  # a rebound name: declared at the top (rebound_arrays)
        self.emit_line(f"{declare}{owner} = kpc::empty<{ct}, {t.ndim}>({{{', '.join(shape)}}});")
        self.emit_line(f"{declare}{lhs} = kpc::view_of_array<{ct}, {t.ndim}, Kokkos::LayoutRight>({owner});")
        fill = None
        if func in ("np.zeros", "np.zeros_like"):
            fill = literal(0, t.dtype)
        elif func in ("np.ones", "np.ones_like"):
            fill = literal(1, t.dtype)
        elif func in ("np.full", "np.full_like"):
            fill = self.expr.emit(args[1] if len(args) > 1 else call.kwargs["fill_value"], t.dtype)
        if fill is not None:
            self.emit_line(f"Kokkos::deep_copy({lhs}, {fill});")
        self.owners[name] = owner

    def allocate_scratch(self, s, name, call, t) -> None:
        """An array allocated inside a parallel loop (or in a device function) with a constant
        shape of at most ``SCRATCH_ELEMENTS`` elements: a C array on the thread's stack, one per
        iteration, seen through an unmanaged view (so it works on the GPU too)."""
        func = call.func.replace("numpy.", "np.")
        shape_expr = call.args[0] if call.args else call.kwargs.get("shape")
        elements = shape_expr.elements if isinstance(shape_expr, n.TupleExpr) else [shape_expr]
        extents = [constant_int(e) for e in elements]
        where = "inside a parallel loop" if self.in_region else "in a function called from a kernel"
        if (None in extents and not func.endswith("_like") and isinstance(t, ArrayType) and len(extents) == t.ndim
                and self.in_region and self.variant == "host" and self.unit.space != "cuda"
                and not expr_names(elements) & self.region_stores and not _handed_over(self.function.body, name)):
            self.allocate_pooled(s, name, call, t, elements)
            return
        if (None in extents or func.endswith("_like")) and isinstance(t, ArrayType) \
                and (func.endswith("_like") or len(extents) == t.ndim) and self.unit.space != "cuda":
            self.allocate_heap(s, name, call, t, elements)
            return
        if func.endswith("_like") or None in extents or not isinstance(t, ArrayType) or len(extents) != t.ndim:
            raise BackendError(f"an array allocated {where} needs a constant shape (np.zeros(3), "
                               f"np.empty((2, 4))) on a CUDA device, and its extents written out "
                               f"(np.empty((n, m))) on a host space", s.loc)
        size = 1
        for extent in extents:
            size *= extent
        if not 0 < size <= SCRATCH_ELEMENTS:
            raise BackendError(f"an array allocated {where} may have 1 to {SCRATCH_ELEMENTS} elements (it lives "
                               f"on the thread's stack), not {size}: allocate it before the loop", s.loc)
        if not self.declares(s, name):
            raise BackendError(f"array {name!r} must be allocated once, before its uses", s.loc)
        ct = scalar_type(t.dtype)
        lhs = self.name_text(name)
        buffer = f"kpc_scratch_{identifier(name)}"
        self.emit_line(f"{ct} {buffer}[{size}];")
        dims = "*" * t.ndim
        self.scratch_views.add(name)
        self.emit_line(f"Kokkos::View<{ct}{dims}, Kokkos::LayoutRight, Kokkos::MemoryTraits<Kokkos::Unmanaged>> "
                       f"{lhs}({buffer}, {', '.join(map(str, extents))});")
        fill = self.fill_value(func, call, t)
        if fill is not None:
            self.emit_line(f"for (int kpc_k = 0; kpc_k < {size}; ++kpc_k) {buffer}[kpc_k] = {fill};")

    def allocate_pooled(self, s, name, call, t, elements) -> None:
        """An array allocated inside a parallel loop with a shape the loop does not change: one
        block per thread, allocated before the region (``kpc_pool<k>_<name>``: threads x size),
        and each iteration takes the block of the token it holds (``kpc::token_slot``)."""
        if not self.declares(s, name):
            raise BackendError(f"array {name!r} must be allocated once, before its uses", s.loc)
        func = call.func.replace("numpy.", "np.")
        ct = scalar_type(t.dtype)
        tag = f"{self.region_index}_{identifier(name)}"  # the same when the body is emitted twice
        extents = [f"kpc_extent{tag}_{d}" for d in range(t.ndim)]
        size = " * ".join(extents)
        setup = [f"const int64_t {e} = kpc::max<int64_t>(0, {self.expr.emit(x, INT64)});"
                 for e, x in zip(extents, elements)]
        setup += [f"const Kokkos::Experimental::UniqueToken<kpc_exec_space> kpc_token{tag};",
                  f"const Kokkos::View<{ct}*, kpc_exec_space::memory_space> kpc_pool{tag}("
                  f"Kokkos::view_alloc(Kokkos::WithoutInitializing, \"kpc_pool\"), "
                  f"static_cast<size_t>(kpc_token{tag}.size()) * static_cast<size_t>({size}));"]
        self.region_pools[name] = setup
        lhs = self.name_text(name)
        dims = "*" * t.ndim
        self.emit_line(f"const kpc::token_slot<Kokkos::Experimental::UniqueToken<kpc_exec_space>> "
                       f"kpc_slot{tag}(kpc_token{tag});")
        self.scratch_views.add(name)
        self.emit_line(f"Kokkos::View<{ct}{dims}, Kokkos::LayoutRight, Kokkos::MemoryTraits<Kokkos::Unmanaged>> "
                       f"{lhs}(kpc_pool{tag}.data() + static_cast<size_t>(kpc_slot{tag}.id) * ({size}), "
                       f"{', '.join(extents)});")
        fill = self.fill_value(func, call, t)
        if fill is not None:
            self.emit_line(f"for (int64_t kpc_k = 0; kpc_k < {size}; ++kpc_k) {lhs}.data()[kpc_k] = {fill};")

    def allocate_heap(self, s, name, call, t, elements) -> None:
        """An array allocated inside a parallel loop, or in a function called from one, with a
        shape known only at run time that the per-thread pool cannot take (the loop changes it,
        or a called function's arguments give it): heap memory held by the scope of the
        allocation (``kpc::heap_scratch``), seen through an unmanaged view. Host spaces only."""
        if not self.declares(s, name):
            raise BackendError(f"array {name!r} must be allocated once, before its uses", s.loc)
        func = call.func.replace("numpy.", "np.")
        ct = scalar_type(t.dtype)
        lhs = self.name_text(name)
        tag = identifier(name)
        if func.endswith("_like"):
            source = self.expr.operand(call.args[0])
            shape = [f"kpc::extent({source}, {d})" for d in range(t.ndim)]
        else:
            shape = [self.expr.emit(e, INT64) for e in elements]
        extents = [f"kpc_heap_extent_{tag}_{d}" for d in range(t.ndim)]
        for extent, value in zip(extents, shape):
            self.emit_line(f"const int64_t {extent} = kpc::max<int64_t>(0, {value});")
        size = " * ".join(extents)
        self.emit_line(f"kpc::heap_scratch<{ct}> kpc_heap_{tag}({size});")
        dims = "*" * t.ndim
        self.scratch_views.add(name)
        self.heap_views.add(name)
        self.emit_line(f"Kokkos::View<{ct}{dims}, Kokkos::LayoutRight, Kokkos::MemoryTraits<Kokkos::Unmanaged>> "
                       f"{lhs}(kpc_heap_{tag}.data, {', '.join(extents)});")
        fill = self.fill_value(func.removesuffix("_like"), call, t)
        if fill is not None:
            self.emit_line(f"for (int64_t kpc_k = 0; kpc_k < {size}; ++kpc_k) {lhs}.data()[kpc_k] = {fill};")

    def rebinds_scratch(self, s, name: str, value) -> bool:
        """``d = tmp0`` where both names are arrays allocated inside a parallel loop or a function
        called from one (unmanaged views of the same type) in the block of this statement: the
        view is reassigned, and both memories live until the block ends."""
        if not (isinstance(value, n.Name) and name in self.scratch_views and value.id in self.scratch_views
                and self.type_of(name) == self.type_of(value.id)):
            return False
        block = _block_of(self.function.body, s)
        allocated = {stmt.target.id for stmt in block or [] if isinstance(stmt, n.Assign)
                     and isinstance(stmt.target, n.Name) and is_allocation(stmt.value)}
        return {name, value.id} <= allocated

    def takes_heap_scratch(self, s, name: str, value) -> bool:
        """``prices = tmp0`` where both are heap scratch arrays of one type (``allocate_heap``),
        ``tmp0`` allocated in this statement's block and not read after it there (a loop body
        that shrinks an array each step, lowered from ``prices = prices[1:] * d``): ``prices``
        takes ``tmp0``'s memory, which then lives as long as ``prices`` does."""
        if not (isinstance(value, n.Name) and name in self.heap_views and value.id in self.heap_views
                and self.type_of(name) == self.type_of(value.id)):
            return False
        block = _block_of(self.function.body, s) or []
        position = next(k for k, stmt in enumerate(block) if stmt is s)
        allocated = any(isinstance(stmt, n.Assign) and isinstance(stmt.target, n.Name) and stmt.target.id == value.id
                        and is_allocation(stmt.value) for stmt in block[:position])
        body = self.function.body
        return (allocated and value.id not in used_names(block[position + 1:])
                and not _viewed_elsewhere(body, name, s) and not _viewed_elsewhere(body, value.id, s))

    def fill_value(self, func: str, call, t):
        """The C++ value an allocation inside a parallel loop starts with (np.zeros, np.ones,
        np.full), or None for np.empty."""
        if func == "np.full":
            return self.expr.emit(call.args[1] if len(call.args) > 1 else call.kwargs["fill_value"], t.dtype)
        return {"np.zeros": literal(0, t.dtype), "np.ones": literal(1, t.dtype)}.get(func)


def _handed_over(body: list, name: str) -> bool:
    """Whether ``name`` is rebound to another array name (``row = tmp0``): its memory must be one
    the rebinding can take over (``takes_heap_scratch``), not a block of a per-thread pool."""
    return any(isinstance(stmt, n.Assign) and isinstance(stmt.target, n.Name) and stmt.target.id == name
               and isinstance(stmt.value, n.Name) for stmt in statements(body))


def _viewed_elsewhere(body: list, name: str, rebinding) -> bool:
    """Whether an assignment other than ``rebinding`` binds another name to ``name`` or to a part
    of it (a view whose memory the rebinding could free)."""
    for stmt in statements(body):
        if isinstance(stmt, n.Assign) and stmt is not rebinding and not (
                isinstance(stmt.target, n.Name) and stmt.target.id == name):
            if not isinstance(stmt.target, (n.Name, n.TupleExpr)):
                continue  # an element store binds no view
            values = stmt.value.elements if isinstance(stmt.value, n.TupleExpr) else [stmt.value]
            if any(isinstance(v.type, ArrayType) and is_view_expr(v) and view_base_name(v) == name for v in values):
                return True
    return False


def _block_of(body: list, stmt):
    """The statement list under ``body`` that holds ``stmt``, or None."""
    if any(current is stmt for current in body):
        return body
    for current in body:
        for block in nested_bodies(current):
            found = _block_of(block, stmt)
            if found is not None:
                return found
    return None
