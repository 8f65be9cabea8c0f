"""IR statements -> PyKokkos device code (the body of a ``@pk.workunit`` or ``@pk.function``).

Upstream PyKokkos translates a restricted Python to C++; this lowering writes only
that subset and keeps Numba's semantics on top of it (PYKOKKOS_CONTRACT.md):

- every local is declared once with an annotation, inline where it is first
  assigned in the function's outermost block, hoisted to the top otherwise (C++
  block scoping);
- conditional expressions, ``min``/``max``, integer ``abs``, casts to 64-bit ints
  and short-circuit operands that need statements become if/else statements on
  fresh temporaries;
- ``//`` and ``%`` are written as C operators only where both operands are
  provably non-negative, otherwise through the ``kpc_*`` helpers that implement
  Python's floor semantics; indices that may be negative get Python's wraparound;
- sizes are ``pk.int64`` locals read once from ``v.extent(d)`` in workunits and
  extra parameters of ``@pk.function``s (``extent`` is rejected there, and a raw
  ``size_t`` would turn ``n - 1`` into a huge unsigned number for ``n == 0``);
- views are indexed ``v[i][j]``; subviews are standalone assignments to fresh
  names with bare-name integer positions.

Anything else raises ``Unsupported`` and the kernel stays Numba.

``DeviceCode`` holds what lowering one body keeps (names, declarations, sizes); it lowers
expressions as ``DeviceExpressions`` (device_expressions.py) and statements as
``DeviceStatements`` (device_statements.py).
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field

from kpc.ir import nodes as n
from kpc.ir.types import UNKNOWN, ArrayType, ScalarType

from . import spelling
from .bounds import Bounds
from .device_expressions import DeviceExpressions, ViewInfo
from .device_statements import DeviceStatements
from .effects import names_loaded
from .unsupported import Unsupported, loc_of


@dataclass
class DeviceSignature:
    """What a caller needs to call an emitted ``@pk.function``: its name and size parameters."""

    name: str
    function: n.Function
    extents: list = field(default_factory=list)  # [(view param name, dim)], appended after the params


class NameAllocator:
    """Fresh, readable names that collide with nothing the function or the module uses."""

    def __init__(self, taken):
        self.taken = set(taken) | spelling.CPP_KEYWORDS | {"pk", "math", "np"}
        self.counters: dict = {}

    def claim(self, name: str) -> str:
        """``name`` itself if free (then taken), else ``name_2``, ``name_3``..."""
        candidate, k = name, 1
        while candidate in self.taken:
            k += 1
            candidate = f"{name}_{k}"
        self.taken.add(candidate)
        return candidate

    def fresh(self, prefix: str) -> str:
        k = self.counters.get(prefix, 0)
        while True:
            k += 1
            candidate = f"{prefix}{k}"
            if candidate not in self.taken:
                self.counters[prefix] = k
                self.taken.add(candidate)
                return candidate


def all_names(node) -> set:
    names = set()
    for item in n.walk(node):
        if isinstance(item, n.Name):
            names.add(item.id)
        elif isinstance(item, n.For):
            names.add(item.var.id)
    if isinstance(node, n.Function):
        names |= {p.name for p in node.params} | set(node.locals)
    return names


class DeviceCode(DeviceStatements, DeviceExpressions):
    """Lowers one device body. ``kind`` is ``workunit`` or ``function``.

    ``views`` maps visible view names (IR names) to ``ViewInfo``; ``names`` maps IR
    names to the names printed; ``acc`` is the reduction/scan variable replaced by the
    accumulator (``None`` for parallel_for and functions); ``scan`` wraps stores in
    ``if final:``; ``signatures`` are the emitted ``@pk.function``s callable from here.
    """

    def __init__(self, function: n.Function, kind: str, signatures: dict, allocator: NameAllocator,
                 bounds: Bounds | None = None):
        self.function = function
        self.kind = kind
        self.signatures = signatures
        self.alloc = allocator
        self.bounds = bounds or Bounds(function)
        self.names: dict = {}
        self.views: dict = {}
        self.scalars: dict = {}  # scalar params and captures: IR name -> type
        self.acc: str | None = None
        self.acc_offset: str | None = None
        self.scan = False
        self.region_loop = False  # the body runs inside a serial chunk loop (partial reductions)
        self.lines: list = []
        self.depth = 0
        self.capturing = 0
        self.hoisted: dict = {}  # pk name -> (annotation, initial literal)
        self.declared: set = set()
        self.referenced: set = set()
        self.extent_locals: dict = {}  # (view, d) -> pk name, for workunits
        self.extent_params: list = []  # [(view, d, pk name)], for functions
        self.helpers: set = set()
        self.signatures_used: set = set()
        self.return_element: int | None = None  # lowering element k of a tuple-returning function
        self.int32: list = []  # names that are C++ int (loop variables, the work index)
        self.loops: list = []  # serial loops of the body being lowered (for return/continue)
        self.loop_vars = {s.var.id for s in n.walk(function) if isinstance(s, n.For)}
        self.counts = self.bounds.counts
        self.loaded = names_loaded(function)

    # ------------------------------------------------------------------ output helpers
    def emit(self, text: str) -> None:
        self.lines.append((self.depth, text))

    @contextmanager
    def block(self):
        self.depth += 1
        try:
            yield
        finally:
            self.depth -= 1

    @contextmanager
    def captured(self):
        """Collect the lines emitted inside at relative depth 0 (for short-circuit operands)."""
        saved_lines, saved_depth = self.lines, self.depth
        self.lines, self.depth = [], 0
        self.capturing += 1
        buffer = self.lines
        try:
            yield buffer
        finally:
            self.lines, self.depth = saved_lines, saved_depth
            self.capturing -= 1

    def insert(self, buffer: list) -> None:
        for depth, text in buffer:
            self.lines.append((self.depth + depth, text))

    def name(self, ir_name: str) -> str:
        return self.names.get(ir_name, ir_name)

    def local_type(self, ir_name: str, node=None):
        ty = self.function.locals.get(ir_name)
        if ty is None and node is not None:
            ty = getattr(node, "type", UNKNOWN)
        if not isinstance(ty, ScalarType):
            raise Unsupported(f"local '{ir_name}' of type {ty}", loc_of(node),
                              "only scalar locals and subviews can live in device code")
        return ty

    def declare(self, pk_name: str, ty: ScalarType, value: str | None) -> None:
        """Declare ``pk_name`` here if at the outermost block, else hoist it; then assign ``value``."""
        ann = spelling.scalar_annotation(ty)
        if pk_name in self.declared:
            if value is not None:
                self.emit(f"{pk_name} = {value}")
            return
        self.declared.add(pk_name)
        if self.depth == 0 and not self.capturing and pk_name not in self.referenced:
            self.emit(f"{pk_name}: {ann} = {spelling.zero(ty) if value is None else value}")
            return
        self.hoisted[pk_name] = (ann, spelling.zero(ty))
        if value is not None:
            self.emit(f"{pk_name} = {value}")

    def temp(self, prefix: str, ty: ScalarType, value: str | None = None) -> str:
        name = self.alloc.fresh(prefix)
        self.declare(name, ty, value)
        return name

    # ------------------------------------------------------------------ sizes
    def add_view_param(self, ir_name: str, ty: ArrayType, pk_name: str | None = None) -> None:
        self.views[ir_name] = ViewInfo(ty, "param")
        if pk_name is not None:
            self.names[ir_name] = pk_name

    def extent(self, view: str, dim: int, node=None) -> str:
        info = self.views.get(view)
        if info is None:
            raise Unsupported(f"size of '{view}', which is not a view here", loc_of(node))
        if not 0 <= dim < info.type.ndim:
            raise Unsupported(f"shape[{dim}] of a {info.type.ndim}-d array", loc_of(node))
        if info.origin == "subview":
            how = info.dims[dim]
            return self.extent(how[1], how[2], node) if how[0] == "parent" else how[1]
        key = (view, dim)
        if self.kind == "workunit":
            if key not in self.extent_locals:
                self.extent_locals[key] = self.alloc.claim(f"{self.name(view)}_shape{dim}")
            return self.extent_locals[key]
        for v, d, pk_name in self.extent_params:
            if (v, d) == key:
                return pk_name
        pk_name = self.alloc.claim(f"{self.name(view)}_shape{dim}")
        self.extent_params.append((view, dim, pk_name))
        return pk_name

    def extent_declarations(self) -> list:
        return [f"{name}: pk.int64 = {self.name(v)}.extent({d})" for (v, d), name in self.extent_locals.items()]

    def hoisted_declarations(self) -> list:
        return [f"{name}: {ann} = {init}" for name, (ann, init) in self.hoisted.items()]
