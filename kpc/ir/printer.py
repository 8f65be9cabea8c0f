"""Text form of the IR: the stable, readable dump shown by ``kpc ir`` and pinned by golden tests.

Example::

    func @potential(cluster: f64[:, :] C) -> f64   role=entry parallel
      energy: f64 = 0.0
      parallel_reduce(sum:energy) Range i: i64 in prange(0, len(cluster) - 1)
        for j: i64 in range(i + 1, len(cluster)):
          r: f64 = call @distance(cluster[i], cluster[j])
          energy += call @lj(r)
      return energy
"""

from __future__ import annotations

from . import nodes as n
from .nodes import format_const, format_expr
from .types import UNKNOWN

def _parallel_header(loop: n.For) -> str:
    info = loop.parallel
    parts = [f"parallel_{info.pattern}"]
    detail = []
    if info.reductions:
        detail += [f"{r.op}:{r.var}" for r in info.reductions]
    if info.scan is not None:
        detail.append(f"scan:{info.scan.var}")
    head = parts[0] + (f"({', '.join(detail)})" if detail else "")
    policy = info.policy if info.policy in ("Range", "Team") else f"MDRange{info.depth}D"
    if info.schedule != "static":
        policy += f" schedule={info.schedule}"
    if info.host_form:
        policy += f" host={info.host_form}"
    if info.device_form:
        policy += f" device={info.device_form}"
    return f"{head} {policy}"


def _team_header(loop: n.For) -> str:
    """``team_for TeamThreadRange`` / ``team_reduce(max:m) TeamThreadRange`` / ``vector_reduce(sum:r)
    ThreadVectorRange`` of a loop inside a Team region."""
    info = loop.team
    detail = ", ".join(f"{r.op}:{r.var}" for r in info.reductions)
    return f"{info.level}_{info.pattern}" + (f"({detail})" if detail else "") + f" {info.policy}"


def _loop_text(loop: n.For) -> str:
    var = loop.var.id
    if loop.var.type is not UNKNOWN:
        var += f": {loop.var.type}"
    args = [format_expr(loop.start), format_expr(loop.stop)]
    if not (isinstance(loop.step, n.Const) and loop.step.value == 1):
        args.append(format_expr(loop.step))
    return f"{var} in {loop.kind}({', '.join(args)})"


class _Printer:
    def __init__(self, function: n.Function | None, show_decisions: bool):
        self.lines: list[str] = []
        self.function = function
        self.declared: set[str] = set(p.name for p in function.params) if function else set()
        self.show_decisions = show_decisions

    def emit(self, depth: int, text: str) -> None:
        self.lines.append("  " * depth + text)

    def target(self, target) -> str:
        if isinstance(target, n.Name) and target.id not in self.declared:
            self.declared.add(target.id)
            ty = self.function.locals.get(target.id) if self.function else None
            if ty is None and target.type is not UNKNOWN:
                ty = target.type
            if ty is not None:
                return f"{target.id}: {ty}"
        if isinstance(target, n.TupleExpr):
            return ", ".join(self.target(e) for e in target.elements)
        return format_expr(target)

    def block(self, body: list, depth: int) -> None:
        if not body:
            self.emit(depth, "pass")
        for stmt in body:
            self.stmt(stmt, depth)

    def stmt(self, s, depth: int) -> None:
        if isinstance(s, n.Assign):
            self.emit(depth, f"{self.target(s.target)} = {format_expr(s.value)}")
        elif isinstance(s, n.AugAssign):
            prefix = "atomic " if s.atomic else ""
            self.emit(depth, f"{prefix}{format_expr(s.target)} {s.op}= {format_expr(s.value)}")
        elif isinstance(s, n.For):
            self.declared.add(s.var.id)
            if s.parallel is not None:
                text = f"{_parallel_header(s)} {_loop_text(s)}"
            elif s.team is not None:
                text = f"{_team_header(s)} {_loop_text(s)}"
            else:
                text = f"for {_loop_text(s)}"
            text += ":"
            if self.show_decisions:
                reason = (s.parallel or s.team).reason if (s.parallel or s.team) is not None else s.decision
                if reason:
                    text += f"   # {reason}"
            self.emit(depth, text)
            self.block(s.body, depth + 1)
        elif isinstance(s, n.While):
            self.emit(depth, f"while {format_expr(s.test)}:")
            self.block(s.body, depth + 1)
        elif isinstance(s, n.If):
            self.emit(depth, f"if {format_expr(s.test)}:")
            self.block(s.body, depth + 1)
            orelse = s.orelse
            while len(orelse) == 1 and isinstance(orelse[0], n.If):
                self.emit(depth, f"elif {format_expr(orelse[0].test)}:")
                self.block(orelse[0].body, depth + 1)
                orelse = orelse[0].orelse
            if orelse:
                self.emit(depth, "else:")
                self.block(orelse, depth + 1)
        elif isinstance(s, n.Return):
            self.emit(depth, "return" if s.value is None else f"return {format_expr(s.value)}")
        elif isinstance(s, n.Raise):
            self.emit(depth, f"raise {s.exception}" + (f"({s.message!r})" if s.has_message else ""))
        elif isinstance(s, n.ExprStmt):
            self.emit(depth, format_expr(s.value))
        elif isinstance(s, n.Break):
            self.emit(depth, "break")
        elif isinstance(s, n.Continue):
            self.emit(depth, "continue")
        else:
            raise TypeError(f"cannot print {type(s).__name__}")


def _format_option(value) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {v}" for k, v in value.items()) + "}"
    return repr(value)


def format_signature(function: n.Function) -> str:
    params = []
    for p in function.params:
        text = f"{p.name}: {p.type}"
        if p.default is not None:
            text += f" = {format_expr(p.default)}"
        params.append(text)
    head = f"func @{function.name}({', '.join(params)}) -> {function.return_type}"
    attrs = [f"role={function.role}"]
    attrs += [k for k, v in sorted(function.options.items()) if v is True]
    attrs += [f"{k}={_format_option(v)}" for k, v in sorted(function.options.items())
              if not isinstance(v, bool) and v is not None]
    if function.signatures:
        attrs.append(f"signatures={function.signatures!r}")
    return head + "   " + " ".join(attrs)


def format_function(function: n.Function, show_decisions: bool = False) -> str:
    """One function: its signature line, what ``infer-types`` assumed (generic mode), its body."""
    printer = _Printer(function, show_decisions)
    printer.emit(0, format_signature(function))
    for assumption in function.assumptions:
        printer.emit(1, f"# assumed: {assumption}")
    if show_decisions and function.placement is not None:
        printer.emit(1, f"# placement (--space cuda): {function.placement[1]}")
    printer.block(function.body, 1)
    return "\n".join(printer.lines)


def format_imports(imports: list) -> list:
    """Import records (``Module.imports``) back as import statements, one per source statement."""
    lines, grouped = [], {}
    for record in imports:
        key = (record.get("line"), record["module"], record["name"] is None)
        grouped.setdefault(key, []).append(record)
    for (_, module, plain), records in grouped.items():
        names = []
        for r in records:
            name = r["module"] if plain else r["name"]
            names.append(f"{name} as {r['asname']}" if r.get("asname") else name)
        lines.append(f"import {', '.join(names)}" if plain else f"from {module} import {', '.join(names)}")
    return lines


def format_constants(module) -> list:
    """The module constants the kernels use (frozen at translation time, as Numba does)."""
    seen = {}
    for function in module.functions.values():
        for node in n.walk(function):
            if isinstance(node, n.GlobalConst) and not isinstance(node.value, str) and node.name not in seen:
                seen[node.name] = node
    lines = []
    for name, node in sorted(seen.items()):
        ty = f": {node.type}" if node.type is not UNKNOWN else ""
        lines.append(f"const {name}{ty} = {format_const(node.value)}")
    return lines


def format_module(module, show_decisions: bool = False) -> str:
    """The whole module: imports and frozen constants, functions in source order, the call graph
    edges, then the functions kept as Numba with the reason."""
    header = [lines for lines in (format_imports(module.imports), format_constants(module)) if lines]
    parts = ["\n".join(lines) for lines in header]
    parts += [format_function(f, show_decisions) for f in module.functions.values()]
    edges = sorted(module.callgraph.edges)
    if edges:
        parts.append("callgraph " + ", ".join(f"@{a} -> @{b}" for a, b in edges))
    for name, rejected in module.rejected.items():
        parts.append(f"rejected @{name}: {getattr(rejected.diagnostic, 'message', rejected.diagnostic)}")
    return "\n\n".join(parts) + "\n"
