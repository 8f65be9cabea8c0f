"""The build report: what ``kpc build`` did with each kernel of a file, as a table and as JSON.

One ``BuildReport`` per source file, one ``KernelReport`` per jitted function:
``translated`` (with the dispatch, policy and reductions the passes chose, and
whether its compiled module came from the build cache), ``numba`` (kept as the
original Numba function, with the construct and ``file:line:col`` that stopped
it), ``lazy`` (translated, but kpc could not type it under the argument types it
guessed, listed in ``assumptions``, so each call's types decide; a call kpc cannot type
or compile runs Numba) or
``failed`` (the C++ compiler rejected the generated code). ``fallbacks`` lists the
argument-type signatures that ran as Numba at a call (recorded in the build cache). ``kpc build``
writes the JSON form to ``<out>/<stem>.kpc.json``; ``SCHEMA`` describes it and
``validate`` checks a document against it.

>>> report = BuildReport("m.py", "kokkos", "openmp", output="out/m.py")
>>> report.kernels.append(KernelReport("total", "translated", dispatch="parallel_reduce",
...                                    policy="Range", reductions=["sum:s"], cache="miss",
...                                    build_seconds=3.25))
>>> report.kernels.append(KernelReport("f", "numba", construct="list", location="m.py:9:5",
...                                    reason="unsupported construct 'list' in kernel 'f'"))
>>> validate(report.to_dict())
[]
>>> print(report.format_table(color=False))  # doctest: +NORMALIZE_WHITESPACE
m.py -> out/m.py (kokkos, openmp): 1 translated, 1 kept as Numba, 0 failed
  kernel  status      dispatch         policy  reductions  cache  build
  total   translated  parallel_reduce  Range   sum:s       miss   3.2 s
  f       numba       -                -       -           -      -
    m.py:9:5: kept as Numba: list: unsupported construct 'list' in kernel 'f'
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from kpc import __version__

REPORT_VERSION = 1
STATUSES = ("translated", "lazy", "numba", "failed")
CACHE_STATES = ("hit", "miss", "lazy", "none")


@dataclass
class Region:
    """One parallel region of a kernel: a ``parallel_for``/``parallel_reduce``/``parallel_scan``."""

    line: int
    pattern: str
    policy: str
    depth: int = 1
    schedule: str = "static"
    reductions: list = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"line": self.line, "pattern": self.pattern, "policy": self.policy, "depth": self.depth,
                "schedule": self.schedule, "reductions": list(self.reductions)}


@dataclass
class KernelReport:
    """What happened to one jitted function (see the module docstring)."""

    name: str
    status: str
    role: str = "entry"
    dispatch: str = ""
    policy: str = ""
    reductions: list = field(default_factory=list)
    regions: list = field(default_factory=list)
    construct: str | None = None
    location: str | None = None
    reason: str | None = None
    cache: str = "none"
    build_seconds: float | None = None
    signatures: list = field(default_factory=list)
    fallbacks: list = field(default_factory=list)
    assumptions: list = field(default_factory=list)

    def to_dict(self) -> dict:
        return {
            "name": self.name, "status": self.status, "role": self.role, "dispatch": self.dispatch,
            "policy": self.policy, "reductions": list(self.reductions),
            "regions": [r.to_dict() for r in self.regions], "construct": self.construct,
            "location": self.location, "reason": self.reason, "cache": self.cache,
            "build_seconds": self.build_seconds, "signatures": list(self.signatures),
            "fallbacks": list(self.fallbacks), "assumptions": list(self.assumptions),
        }


@dataclass
class BuildReport:
    """The report of one source file's build; ``error``: why the whole file failed, if it did."""

    source: str
    target: str
    space: str
    output: str | None = None
    report_path: str | None = None
    kernels: list = field(default_factory=list)
    warnings: list = field(default_factory=list)
    violations: list = field(default_factory=list)
    seconds: float = 0.0
    error: str | None = None
    result: object = None

    def count(self, status: str) -> int:
        return sum(1 for k in self.kernels if k.status == status)

    def ok(self, strict: bool = False) -> bool:
        """Built; with ``strict``, also nothing kept as Numba, nothing failed, no contract violation."""
        if self.error is not None:
            return False
        if strict:
            return self.count("numba") == 0 and self.count("failed") == 0 and not self.violations
        return self.count("failed") == 0

    def kernel(self, name: str) -> KernelReport:
        for kernel in self.kernels:
            if kernel.name == name:
                return kernel
        raise KeyError(name)

    def to_dict(self) -> dict:
        return {
            "kpc_report": REPORT_VERSION, "kpc_version": __version__, "source": self.source,
            "target": self.target, "space": self.space, "output": self.output,
            "seconds": round(self.seconds, 3), "error": self.error,
            "summary": {status: self.count(status) for status in STATUSES},
            "kernels": [k.to_dict() for k in self.kernels],
            "warnings": list(self.warnings), "violations": list(self.violations),
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=1)

    def format_table(self, color: bool = False) -> str:
        """The human-readable report: a heading, one row per kernel, a line for each one kept or failed."""
        paint = _painter(color)
        where = f"{self.source} -> {display_path(self.output)}" if self.output else self.source
        lazy = f" ({self.count('lazy')} typed at each call)" if self.count("lazy") else ""
        head = (f"{where} ({self.target}, {self.space}): {self.count('translated') + self.count('lazy')} "
                f"translated{lazy}, {self.count('numba')} kept as Numba, {self.count('failed')} failed"
                + (f" in {self.seconds:.1f} s" if self.seconds else ""))
        lines = [paint(head, "bold")]
        if self.error is not None:
            lines.append(paint(f"  build failed: {self.error.splitlines()[0] if self.error else ''}", "red"))
        rows = [("kernel", "status", "dispatch", "policy", "reductions", "cache", "build")]
        for k in self.kernels:
            seconds = f"{k.build_seconds:.1f} s" if k.build_seconds is not None else "-"
            rows.append((k.name, k.status, k.dispatch or "-", k.policy or "-", ", ".join(k.reductions) or "-",
                         k.cache if k.cache != "none" else "-", seconds))
        widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
        for index, row in enumerate(rows):
            text = "  " + "  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip()
            if index and row[1] not in ("translated", "lazy"):
                text = paint(text, "yellow" if row[1] == "numba" else "red")
            lines.append(text)
            if index == 0:
                continue
            k = self.kernels[index - 1]
            if k.status != "translated":
                what = {"numba": "kept as Numba", "lazy": "typed at each call", "failed": "failed"}[k.status]
                detail = ": ".join(x for x in (k.construct, _first_line(k.reason)) if x)
                lines.append(f"    {k.location + ': ' if k.location else ''}{what}"
                             + (f": {detail}" if detail else ""))
                if k.assumptions:
                    lines.append(f"      under the assumed {'; '.join(k.assumptions)}")
            for fallback in k.fallbacks:
                lines.append(paint(f"    ran as Numba at a call: {fallback}", "yellow"))
        for warning in self.warnings:
            lines.append(paint(f"  warning: {_first_line(warning)}", "magenta"))
        for violation in self.violations:
            lines.append(paint(f"  PyKokkos contract violation: {violation}", "red"))
        return "\n".join(lines)


def display_path(path: str | None) -> str:
    """``path`` relative to the working directory when it lies below it, else as given."""
    import os

    if not path:
        return ""
    relative = os.path.relpath(path)
    return path if relative.startswith("..") else relative


def _first_line(text: str | None) -> str:
    return text.splitlines()[0] if text else ""


# --------------------------------------------------------------------------- decisions from the IR


def decisions(module) -> dict:
    """function name -> ``(role, [Region])`` of a module after the pipeline.

    A region is an outermost parallel loop (loops inside it belong to it).
    """
    from kpc.ir import nodes as n

    found = {}

    def block(stmts, regions):
        for stmt in stmts:
            if isinstance(stmt, n.For):
                info = stmt.parallel
                if info is None:
                    block(stmt.body, regions)
                    continue
                reductions = [f"{r.op}:{r.var}" for r in info.reductions]
                if info.scan is not None:
                    reductions.append(f"scan-{info.scan.op}:{info.scan.var}")
                regions.append(Region(stmt.loc.line, f"parallel_{info.pattern}", info.policy, info.depth,
                                      info.schedule, reductions))
            elif isinstance(stmt, n.While):
                block(stmt.body, regions)
            elif isinstance(stmt, n.If):
                block(stmt.body, regions)
                block(stmt.orelse, regions)

    for name, function in module.functions.items():
        regions: list = []
        block(function.body, regions)
        found[name] = (function.role, regions)
    return found


def summarize(role: str, regions: list) -> tuple:
    """``(dispatch, policy, reductions)`` of a kernel for the table.

    >>> summarize("entry", [Region(3, "parallel_reduce", "Range", schedule="dynamic", reductions=["sum:e"])])
    ('parallel_reduce', 'Range (dynamic)', ['sum:e'])
    >>> summarize("entry", [])
    ('serial', 'Serial', [])
    >>> summarize("device", [])
    ('device function', '-', [])
    """
    if role == "device":
        return "device function", "-", []
    if not regions:
        return "serial", "Serial", []
    patterns = list(dict.fromkeys(r.pattern for r in regions))
    policies = []
    for r in regions:
        text = f"MDRange {r.depth}-D" if r.policy == "MDRange" else r.policy
        if r.schedule != "static":
            text += f" ({r.schedule})"
        policies.append(text)
    reductions = [x for r in regions for x in r.reductions]
    return " + ".join(patterns), " + ".join(dict.fromkeys(policies)), reductions


_DIAGNOSTIC_HEAD = re.compile(r"^(?P<loc>.+?:\d+:\d+): (?:error|warning): (?P<message>.*)$")
_CONSTRUCT = re.compile(r"unsupported construct '([^']+)'")


def parse_reason(reason: str | None) -> tuple:
    """``(location, construct, message)`` of a formatted diagnostic (or any reason text).

    >>> parse_reason("m.py:3:10: error: unsupported construct 'list' in kernel 'f'\\n    xs = [1]")
    ('m.py:3:10', 'list', "unsupported construct 'list' in kernel 'f'")
    """
    if not reason:
        return None, None, None
    head = reason.splitlines()[0]
    match = _DIAGNOSTIC_HEAD.match(head)
    location, message = (match["loc"], match["message"]) if match else (None, head)
    construct = _CONSTRUCT.search(message)
    return location, construct[1] if construct else None, message


# --------------------------------------------------------------------------- JSON schema

_STRING_OR_NULL = {"type": ["string", "null"]}
_STRINGS = {"type": "array", "items": {"type": "string"}}

REGION_SCHEMA = {
    "type": "object",
    "required": ["line", "pattern", "policy", "depth", "schedule", "reductions"],
    "additionalProperties": False,
    "properties": {
        "line": {"type": "integer"},
        "pattern": {"enum": ["parallel_for", "parallel_reduce", "parallel_scan"]},
        "policy": {"enum": ["Range", "MDRange", "Team"]},
        "depth": {"type": "integer"},
        "schedule": {"enum": ["static", "dynamic"]},
        "reductions": _STRINGS,
    },
}

KERNEL_SCHEMA = {
    "type": "object",
    "required": ["name", "status", "role", "dispatch", "policy", "reductions", "regions", "construct",
                 "location", "reason", "cache", "build_seconds", "signatures", "fallbacks",
                 "assumptions"],
    "additionalProperties": False,
    "properties": {
        "name": {"type": "string"},
        "status": {"enum": list(STATUSES)},
        "role": {"enum": ["entry", "device", "both", ""]},
        "dispatch": {"type": "string"},
        "policy": {"type": "string"},
        "reductions": _STRINGS,
        "regions": {"type": "array", "items": REGION_SCHEMA},
        "construct": _STRING_OR_NULL,
        "location": _STRING_OR_NULL,
        "reason": _STRING_OR_NULL,
        "cache": {"enum": list(CACHE_STATES)},
        "build_seconds": {"type": ["number", "null"]},
        "signatures": _STRINGS,
        "fallbacks": _STRINGS,
        "assumptions": _STRINGS,
    },
}

SCHEMA = {
    "type": "object",
    "required": ["kpc_report", "kpc_version", "source", "target", "space", "output", "seconds", "error",
                 "summary", "kernels", "warnings", "violations"],
    "additionalProperties": False,
    "properties": {
        "kpc_report": {"enum": [REPORT_VERSION]},
        "kpc_version": {"type": "string"},
        "source": {"type": "string"},
        "target": {"enum": ["kokkos", "pykokkos"]},
        "space": {"type": "string"},
        "output": _STRING_OR_NULL,
        "seconds": {"type": "number"},
        "error": _STRING_OR_NULL,
        "summary": {
            "type": "object", "required": list(STATUSES), "additionalProperties": False,
            "properties": {status: {"type": "integer"} for status in STATUSES},
        },
        "kernels": {"type": "array", "items": KERNEL_SCHEMA},
        "warnings": _STRINGS,
        "violations": _STRINGS,
    },
}

_TYPES = {
    "object": dict, "array": list, "string": str, "boolean": bool, "null": type(None),
    "integer": int, "number": (int, float),
}


def validate(data, schema: dict = SCHEMA, where: str = "$") -> list:
    """Errors of ``data`` against ``schema`` (a subset of JSON Schema: ``type``, ``enum``,
    ``properties``, ``required``, ``additionalProperties: false``, ``items``); [] when valid.

    >>> validate({"kpc_report": 1}, {"type": "object", "required": ["source"]})
    ["$: missing property 'source'"]
    >>> validate([1, "a"], {"type": "array", "items": {"type": "integer"}})
    ['$[1]: expected integer, got str']
    """
    errors = []
    if "type" in schema:
        names = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(_is_type(data, name) for name in names):
            return [f"{where}: expected {' or '.join(names)}, got {type(data).__name__}"]
    if "enum" in schema and data not in schema["enum"]:
        errors.append(f"{where}: {data!r} is not one of {schema['enum']!r}")
    if isinstance(data, dict):
        for name in schema.get("required", []):
            if name not in data:
                errors.append(f"{where}: missing property {name!r}")
        properties = schema.get("properties", {})
        for name, value in data.items():
            if name in properties:
                errors += validate(value, properties[name], f"{where}.{name}")
            elif schema.get("additionalProperties", True) is False:
                errors.append(f"{where}: unexpected property {name!r}")
    if isinstance(data, list) and "items" in schema:
        for index, item in enumerate(data):
            errors += validate(item, schema["items"], f"{where}[{index}]")
    return errors


def _is_type(value, name: str) -> bool:
    if isinstance(value, bool) and name in ("integer", "number"):
        return False
    return isinstance(value, _TYPES[name])


# --------------------------------------------------------------------------- terminal colours

_CODES = {"bold": "1", "red": "31;1", "green": "32", "yellow": "33", "magenta": "35", "cyan": "36"}


def _painter(color: bool):
    if not color:
        return lambda text, style: text
    return lambda text, style: f"\033[{_CODES[style]}m{text}\033[0m"


def paint_diagnostic(text: str, color: bool) -> str:
    """A formatted diagnostic with the location bold, ``error:`` red, the caret line green and
    the hint cyan (unchanged when ``color`` is false)."""
    if not color:
        return text
    paint = _painter(True)
    lines = []
    for line in text.splitlines():
        match = re.match(r"^(.*?: )(error|warning|note)(: .*)$", line)
        if match and not line.startswith(" "):
            style = {"error": "red", "warning": "magenta", "note": "cyan"}[match[2]]
            lines.append(paint(match[1], "bold") + paint(match[2], style) + match[3])
        elif line.strip() and set(line.strip()) <= {"^", "~"}:
            lines.append(paint(line, "green"))
        elif line.startswith("  hint:"):
            lines.append(paint(line, "cyan"))
        else:
            lines.append(line)
    return "\n".join(lines)
