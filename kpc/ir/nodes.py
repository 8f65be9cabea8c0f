"""Nodes of the typed kernel IR: a structured tree close to the Python source.

Every node carries a ``Loc`` (file, line, column) so diagnostics and generated
lines point back at the user's code. Expressions carry a ``type`` that is
``UNKNOWN`` until the ``infer-types`` pass fills it in.

Parallel loops are ``For`` nodes with a ``parallel`` annotation (``ParallelInfo``):
one uniform representation for serial, ``prange`` and auto-parallelized loops,
so passes only flip annotations and emitters read them.

An expression prints as Python-like text (``format_expr``, also its ``str``); ``kpc.ir.printer``
prints statements, functions and modules with it.

>>> i = Name("i")
>>> str(BinOp("+", i, Const(1)))
'i + 1'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .types import UNKNOWN, Type


@dataclass(frozen=True)
class Loc:
    """A source position: 1-based line, 0-based column (as Python's ``ast``)."""

    file: str = "<unknown>"
    line: int = 0
    col: int = 0

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col + 1}"


NOLOC = Loc()


# --------------------------------------------------------------------------- expressions


@dataclass(eq=False)
class Expr:
    """Base of expressions. ``type`` is filled by ``infer-types``."""

    def __str__(self) -> str:
        return format_expr(self)


@dataclass(eq=False)
class Const(Expr):
    """A literal: int, float, bool, complex, or None (``np.newaxis``)."""

    value: Any
    type: Type = UNKNOWN
    loc: Loc = NOLOC


@dataclass(eq=False)
class Name(Expr):
    """A reference to a parameter, local or loop variable."""

    id: str
    type: Type = UNKNOWN
    loc: Loc = NOLOC


@dataclass(eq=False)
class GlobalConst(Expr):
    """A module-level constant or math constant (``math.pi``, ``N = 3``), frozen at build time
    like Numba does; ``value`` is the Python value."""

    name: str
    value: Any
    type: Type = UNKNOWN
    loc: Loc = NOLOC


@dataclass(eq=False)
class BinOp(Expr):
    """Binary arithmetic/bitwise: ``+ - * / // % ** << >> & | ^ @``.

    ``checked``: a ``/ // %`` whose zero divisor raises ZeroDivisionError, as in Numba's
    default ``error_model='python'`` (set by ``error-model``); unchecked ones give NumPy's
    inf, nan or 0.
    """

    op: str
    left: Expr
    right: Expr
    type: Type = UNKNOWN
    loc: Loc = NOLOC
    checked: bool = False


@dataclass(eq=False)
class UnaryOp(Expr):
    """Unary ``-``, ``+``, ``~`` and ``not``."""

    op: str
    operand: Expr
    type: Type = UNKNOWN
    loc: Loc = NOLOC


@dataclass(eq=False)
class Compare(Expr):
    """One comparison ``< <= > >= == !=`` (chains are split into ``and`` by the frontend)."""

    op: str
    left: Expr
    right: Expr
    type: Type = UNKNOWN
    loc: Loc = NOLOC


@dataclass(eq=False)
class BoolOp(Expr):
    """Short-circuit ``and`` / ``or`` over two or more values."""

    op: str
    values: list
    type: Type = UNKNOWN
    loc: Loc = NOLOC


@dataclass(eq=False)
class IfExp(Expr):
    """Conditional expression ``body if test else orelse``; ``branchless`` (set by ``if-convert``):
    both values are cheap and safe to compute, so the C++ target selects without a branch."""

    test: Expr
    body: Expr
    orelse: Expr
    type: Type = UNKNOWN
    loc: Loc = NOLOC
    branchless: bool = False


@dataclass(eq=False)
class Call(Expr):
    """A call. ``kind`` says what is called:

    - ``kernel``: another jitted function of the module (``func`` is its name);
    - ``math``: a math intrinsic (``sqrt``, ``exp``, ``atan2``, ...; ``math.`` or ``np.`` scalar form);
    - ``builtin``: ``abs min max len int float bool range``;
    - ``numpy``: a NumPy function or array method before ``lower-numpy``
      (``func`` is e.g. ``np.sum`` or ``.sum``; method calls put the object first in ``args``);
    - ``random``: ``np.random.<f>``, a draw from (or ``seed`` of) the shared generator: a side
      effect, never duplicated, reordered or removed; ``args`` are bound to NumPy's parameters.
    """

    func: str
    args: list
    kind: str = "kernel"
    kwargs: dict = field(default_factory=dict)
    type: Type = UNKNOWN
    loc: Loc = NOLOC


@dataclass(eq=False)
class Cast(Expr):
    """A conversion to a scalar type: ``int(x)``, ``float(x)``, ``np.float32(x)``.

    ``builtin`` names the Python builtin (``int``, ``float``, ...) of a builtin conversion,
    whose result type depends on the operand in Numba (``float`` of a float32 stays float32):
    ``infer-types`` sets ``to`` accordingly. Empty for NumPy/Numba dtype conversions.
    """

    to: Type
    value: Expr
    type: Type = UNKNOWN
    loc: Loc = NOLOC
    builtin: str = ""


@dataclass(eq=False)
class Slice(Expr):
    """A slice inside an index: ``lower:upper:step``; missing parts are ``None``."""

    lower: Expr | None = None
    upper: Expr | None = None
    step: Expr | None = None
    type: Type = UNKNOWN
    loc: Loc = NOLOC


@dataclass(eq=False)
class Index(Expr):
    """Array indexing ``base[i, j]``; indices are expressions or ``Slice``.

    ``a[i][j]`` is represented as ``a[i, j]``. An index with fewer entries than the
    rank, or with slices, is a subview (type ``ArrayType``); a full integer index
    is an element (type ``ScalarType``).
    """

    base: Expr
    indices: list
    type: Type = UNKNOWN
    loc: Loc = NOLOC


@dataclass(eq=False)
class Attribute(Expr):
    """Array attributes: ``shape``, ``size``, ``ndim``, ``T``, ``dtype``."""

    value: Expr
    attr: str
    type: Type = UNKNOWN
    loc: Loc = NOLOC


@dataclass(eq=False)
class TupleExpr(Expr):
    """A tuple display ``(a, b)``: returned values, tuple unpacking targets, shapes."""

    elements: list
    type: Type = UNKNOWN
    loc: Loc = NOLOC


# --------------------------------------------------------------------------- text of expressions


# Python precedence, higher binds tighter; used to print the fewest parentheses.
_PREC = {
    "or": 1, "and": 2, "not": 3, "cmp": 4, "|": 5, "^": 6, "&": 7, "<<": 8, ">>": 8,
    "+": 9, "-": 9, "*": 10, "/": 10, "//": 10, "%": 10, "@": 10, "unary": 11, "**": 12,
    "atom": 13, "ifexp": 0,
}


def _prec(expr) -> int:
    if isinstance(expr, BinOp):
        return _PREC[expr.op]
    if isinstance(expr, UnaryOp):
        return _PREC["not"] if expr.op == "not" else _PREC["unary"]
    if isinstance(expr, Compare):
        return _PREC["cmp"]
    if isinstance(expr, BoolOp):
        return _PREC[expr.op]
    if isinstance(expr, IfExp):
        return _PREC["atom"] if expr.branchless else _PREC["ifexp"]
    if isinstance(expr, Const) and isinstance(expr.value, (int, float)) and expr.value < 0:
        return _PREC["unary"]
    return _PREC["atom"]


def _wrap(expr, minimum: int) -> str:
    text = format_expr(expr)
    return f"({text})" if _prec(expr) < minimum else text


def format_const(value) -> str:
    if value is None:
        return "None"
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, float):
        return repr(value)
    return repr(value)


def format_expr(expr) -> str:
    """Python-like text of an expression (no types; types are shown on declarations)."""
    if expr is None:
        return ""
    if isinstance(expr, Const):
        return format_const(expr.value)
    if isinstance(expr, Name):
        return expr.id
    if isinstance(expr, GlobalConst):
        return expr.name
    if isinstance(expr, BinOp):
        p = _PREC[expr.op]
        if expr.op == "**":
            return f"{_wrap(expr.left, p + 1)} ** {_wrap(expr.right, p)}"
        return f"{_wrap(expr.left, p)} {expr.op} {_wrap(expr.right, p + 1)}"
    if isinstance(expr, UnaryOp):
        if expr.op == "not":
            return f"not {_wrap(expr.operand, _PREC['not'])}"
        return f"{expr.op}{_wrap(expr.operand, _PREC['unary'])}"
    if isinstance(expr, Compare):
        p = _PREC["cmp"]
        return f"{_wrap(expr.left, p + 1)} {expr.op} {_wrap(expr.right, p + 1)}"
    if isinstance(expr, BoolOp):
        p = _PREC[expr.op]
        return f" {expr.op} ".join(_wrap(v, p + 1) for v in expr.values)
    if isinstance(expr, IfExp) and expr.branchless:
        return f"select({format_expr(expr.test)}, {format_expr(expr.body)}, {format_expr(expr.orelse)})"
    if isinstance(expr, IfExp):
        return f"{_wrap(expr.body, 1)} if {_wrap(expr.test, 1)} else {_wrap(expr.orelse, 0)}"
    if isinstance(expr, Call):
        args = [format_expr(a) for a in expr.args]
        args += [f"{k}={format_expr(v)}" for k, v in expr.kwargs.items()]
        if expr.kind == "kernel":
            return f"call @{expr.func}({', '.join(args)})"
        if expr.kind == "numpy" and expr.func.startswith("."):
            return f"{_wrap(expr.args[0], _PREC['atom'])}{expr.func}({', '.join(args[1:])})"
        return f"{expr.func}({', '.join(args)})"
    if isinstance(expr, Cast):
        return f"{expr.to}({format_expr(expr.value)})"
    if isinstance(expr, Slice):
        text = f"{format_expr(expr.lower)}:{format_expr(expr.upper)}"
        if expr.step is not None:
            text += f":{format_expr(expr.step)}"
        return text
    if isinstance(expr, Index):
        inner = ", ".join(format_expr(i) for i in expr.indices)
        return f"{_wrap(expr.base, _PREC['atom'])}[{inner}]"
    if isinstance(expr, Attribute):
        return f"{_wrap(expr.value, _PREC['atom'])}.{expr.attr}"
    if isinstance(expr, TupleExpr):
        inner = ", ".join(format_expr(e) for e in expr.elements)
        return f"({inner},)" if len(expr.elements) == 1 else f"({inner})"
    raise TypeError(f"cannot print {type(expr).__name__}")


# --------------------------------------------------------------------------- statements


@dataclass(eq=False)
class Stmt:
    """Base of statements."""


@dataclass(eq=False)
class Assign(Stmt):
    """``target = value``; target is a ``Name``, an ``Index`` (element or slice store)
    or a ``TupleExpr`` of names (tuple unpacking)."""

    target: Expr
    value: Expr
    loc: Loc = NOLOC


@dataclass(eq=False)
class AugAssign(Stmt):
    """``target op= value``. ``atomic`` is set by ``recognize-reductions`` for scatter
    updates inside parallel loops (``hist[idx[i]] += 1``); ``checked`` as for ``BinOp``."""

    target: Expr
    op: str
    value: Expr
    atomic: bool = False
    loc: Loc = NOLOC
    checked: bool = False


@dataclass(eq=False)
class ReductionSpec:
    """A reduction variable of a parallel loop: ``var`` combined with ``op`` (sum/prod/min/max)."""

    var: str
    op: str
    type: Type = UNKNOWN


@dataclass(eq=False)
class ScanSpec:
    """A prefix scan of a parallel loop: ``var`` accumulates with ``op`` (sum), inclusive."""

    var: str
    op: str = "sum"
    type: Type = UNKNOWN


@dataclass(eq=False)
class ParallelInfo:
    """How a ``For`` runs in parallel (set by ``parallelize`` and later passes).

    - ``pattern``: ``for`` | ``reduce`` | ``scan``;
    - ``policy``: ``Range`` | ``MDRange`` | ``Team``; ``depth`` = number of perfectly nested loops
      collapsed into the policy (1 for Range and Team, 2–3 for MDRange); a ``Team`` region
      (``choose-teams``) runs one team per iteration, and the loops of its body whose ``For.team``
      is set run across the team's threads;
    - ``reductions`` / ``scan``: what is combined across iterations;
    - ``schedule``: ``static`` | ``dynamic`` (``choose-schedule``);
    - ``reason``: why this decision was taken (shown by ``--explain``);
    - ``captures``: names defined outside the region and read inside it (arrays and
      scalars the functor/workunit receives); ``privates``: locals first assigned inside
      the region (declared per iteration); both sorted, filled by ``parallelize``;
    - ``serial_below``: the cost guard: when the trip count is below this at run
      time the region runs serially (None = always parallel); ``serial_work``: paths of the
      loops inside an iteration whose trip counts are known only at run time (and do not
      change during the region), one per innermost such loop, each the ``[start, stop, step]``
      of it and the run-time loops around it: the guard multiplies the trip count by the
      largest product of a path's trip counts before comparing; ``paired``: a dynamic region whose iterations' work
      rises or falls linearly with its index (a triangular inner loop): host spaces run
      iterations ``t`` and ``n - 1 - t`` in one work item under a static schedule instead;
    - ``learn_below``: for a region whose work per iteration the cost guard cannot estimate
      (``serial_below`` None): below this many iterations it learns serial against parallel at
      run time, per size class of its trip count (None: always parallel);
    - ``learn_every_size``: the guard's learning (timed serial and parallel calls per size class,
      then the faster) applies at every amount of work, not only near the threshold: a region of
      a kernel Numba runs serially (no ``parallel=True``), which kpc runs in parallel only where
      that measures faster on the machine at hand (``cost-guard``);
    - ``host_form``: the form host spaces run the region in instead of a plain launch
      (``choose-host-forms``; CUDA ignores it): ``element-copy`` (a ``memmove`` per thread
      block), ``chunked-reduce`` (chunks of iterations, four local accumulators each), or "";
    - ``device_form``: the form device spaces (CUDA) launch the region in (``choose-device-forms``;
      host spaces ignore it): ``flat`` (an MDRange region as a 1-D range, its indices recomputed
      from the flat one), or "".
    """

    pattern: str = "for"
    policy: str = "Range"
    depth: int = 1
    reductions: list = field(default_factory=list)
    scan: ScanSpec | None = None
    schedule: str = "static"
    reason: str = ""
    captures: list = field(default_factory=list)
    privates: list = field(default_factory=list)
    serial_below: int | None = None
    learn_below: int | None = None
    learn_every_size: bool = False
    serial_work: list = field(default_factory=list)
    paired: bool = False
    host_form: str = ""
    device_form: str = ""

    @property
    def level(self) -> str:
        """``vector`` for a loop across a thread's vector lanes, ``team`` for one across a team's
        threads (the annotations of ``For.team``)."""
        return "vector" if self.policy == "ThreadVectorRange" else "team"


@dataclass(eq=False)
class For(Stmt):
    """``for var in range(start, stop, step)`` (``kind`` = ``range`` or ``prange``).

    ``parallel`` is None for a serial loop. ``decision`` holds the reason a loop
    stays serial (for ``--explain``). ``team`` is set on a loop in the body of a ``Team``
    region that runs across the threads of the team (``policy`` ``TeamThreadRange``), or on a
    loop in the body of such a loop that runs across the vector lanes of a thread
    (``ThreadVectorRange``); ``pattern``, ``reductions`` and ``reason`` as for regions;
    ``parallel`` stays None.
    """

    var: Name
    start: Expr
    stop: Expr
    step: Expr
    body: list
    kind: str = "range"
    parallel: ParallelInfo | None = None
    decision: str = ""
    loc: Loc = NOLOC
    team: ParallelInfo | None = None


@dataclass(eq=False)
class While(Stmt):
    test: Expr
    body: list
    loc: Loc = NOLOC


@dataclass(eq=False)
class If(Stmt):
    test: Expr
    body: list
    orelse: list = field(default_factory=list)
    loc: Loc = NOLOC


@dataclass(eq=False)
class Return(Stmt):
    value: Expr | None = None
    loc: Loc = NOLOC


@dataclass(eq=False)
class Raise(Stmt):
    """``raise ValueError("text")``: the call raises the builtin ``exception`` where this runs.

    ``message`` is the one constant argument (``raise ValueError`` and ``ValueError()`` have
    none: ``has_message`` is False), so the caller sees the exception Numba raises.
    """

    exception: str
    message: str = ""
    has_message: bool = False
    loc: Loc = NOLOC


@dataclass(eq=False)
class ExprStmt(Stmt):
    value: Expr
    loc: Loc = NOLOC


@dataclass(eq=False)
class Break(Stmt):
    loc: Loc = NOLOC


@dataclass(eq=False)
class Continue(Stmt):
    loc: Loc = NOLOC


# --------------------------------------------------------------------------- functions


@dataclass(eq=False)
class Param:
    """A parameter; ``default`` is the ``Const`` of a default value (``def f(x, k=2)``) or None."""

    name: str
    type: Type = UNKNOWN
    loc: Loc = NOLOC
    default: Expr | None = None


@dataclass(eq=False)
class Function:
    """A jitted function.

    ``options``: decorator options (``parallel``, ``fastmath``, ``cache``, ``nogil``,
    ``boundscheck``); ``signatures``: eager signature strings as written;
    ``locals``: declared type of every local (filled by ``infer-types``);
    ``role``: ``entry`` (called from Python), ``device`` (called from kernels) or
    ``both`` (set by ``infer-dispatch``); ``docstring``: kept for the drop-in module;
    ``assumptions``: what ``infer-types`` assumed where no signature said (generic mode,
    e.g. ``"cluster: f64[:, :] (dtype assumed float64; rank from cluster[i] passed to @distance)"``);
    ``guessed``: those of them the body does not settle (a dtype or a scalar type only guessed):
    each call's argument types decide, and ``--explain`` says its decisions are under guesses;
    ``placement``: see ``kpc.passes.choose_placement``; ``specialized_from``: the function this
    one is a copy of, for call sites passing other types (``infer-types``, as Numba compiles a
    helper once per argument types), else None.
    """

    name: str
    params: list
    body: list
    return_type: Type = UNKNOWN
    options: dict = field(default_factory=dict)
    signatures: list = field(default_factory=list)
    locals: dict = field(default_factory=dict)
    role: str = "entry"
    docstring: str | None = None
    loc: Loc = NOLOC
    assumptions: list = field(default_factory=list)
    guessed: list = field(default_factory=list)
    # (device?, why): whether a --space cuda build compiles this entry for the device
    # (set by choose-placement; None before it ran)
    placement: tuple | None = None
    specialized_from: str | None = None

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)


def walk(node):
    """Yield ``node`` and every IR node below it (statements and expressions), depth first.

    A node's children are read after the node is yielded, so a caller may rewrite them.
    """
    stack = [node]
    pop, extend = stack.pop, stack.extend
    while stack:
        current = pop()
        if current is None:
            continue
        if isinstance(current, list):
            extend(reversed(current))
            continue
        yield current
        below = _children_of(current)
        if below:
            below.reverse()
            extend(below)


def children(node):
    """The direct IR children of a node, in source order."""
    yield from _children_of(node)


# Fields that never hold child nodes: annotations are strings (``from __future__ import annotations``).
_LEAF_FIELDS = {"type", "loc", "to", "parallel", "team"}
_LEAF_ANNOTATIONS = {"str", "bool", "int", "Type", "Loc"}
_CHILD_FIELDS: dict = {}


def _child_fields(cls) -> tuple:
    """The names of the fields of node class ``cls`` that may hold nodes (computed once per class)."""
    fields = _CHILD_FIELDS.get(cls)
    if fields is None:
        if not issubclass(cls, (Expr, Stmt)):
            fields = ()
        else:
            fields = tuple(f.name for f in cls.__dataclass_fields__.values()
                           if f.name not in _LEAF_FIELDS and f.type not in _LEAF_ANNOTATIONS
                           and f.type not in (str, bool, int))
        _CHILD_FIELDS[cls] = fields
    return fields


def _children_of(node) -> list:
    if isinstance(node, Function):
        return list(node.body)
    result = []
    append = result.append
    for name in _child_fields(type(node)):
        value = getattr(node, name)
        if isinstance(value, _NODE_TYPES):
            append(value)
        elif isinstance(value, list):
            result.extend([item for item in value if isinstance(item, _NODE_TYPES)])
        elif isinstance(value, dict):
            result.extend([item for item in value.values() if isinstance(item, _NODE_TYPES)])
    return result


_NODE_TYPES = (Expr, Stmt)
