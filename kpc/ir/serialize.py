"""JSON form of the IR: ``to_json(module)`` / ``from_json(text)``, an exact round trip.

Nodes are encoded field by field from their dataclass definitions (so fields other
engineers add to ``nodes.py`` travel without changes here), with a ``"$node"`` tag;
types, locations, constants that JSON has no literal for (complex, inf, nan,
tuples) and diagnostics carry ``$``-tags too. Locations in the module's own file are
``[line, col]``. The call graph is rebuilt on load. ``format_module`` of the loaded
module prints the same text as of the original.

>>> from kpc.ir.module import Module
>>> from kpc.ir.nodes import Function, Param, Return, BinOp, Name, Const, Loc
>>> from kpc.ir.types import FLOAT64
>>> m = Module("m.py", "")
>>> m.add(Function("f", [Param("x", FLOAT64)], [Return(BinOp("*", Name("x"), Const(2.5)), loc=Loc("m.py", 3, 4))]))
>>> from_json(to_json(m)).functions["f"].body[0].loc
Loc(file='m.py', line=3, col=4)
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import math

from . import nodes
from .diagnostics import Diagnostic, Note
from .module import Module, Rejected
from .types import (
    NONE, SLICE, UNKNOWN, ArrayType, DTypeType, NoneType, ScalarType, SliceType, TupleType, UnknownType,
    scalar,
)

FORMAT_VERSION = 1

_NODE_CLASSES = {name: cls for name, cls in vars(nodes).items()
                 if isinstance(cls, type) and dataclasses.is_dataclass(cls) and cls.__module__ == nodes.__name__}


class IRFormatError(ValueError):
    """The JSON text is not a kpc IR module this version can read."""


class _Encoder:
    def __init__(self, path: str):
        self.path = path

    def value(self, v):
        if v is None or isinstance(v, (bool, str)):
            return v
        if isinstance(v, int):
            return v
        if isinstance(v, float):
            if math.isnan(v) or math.isinf(v):
                return {"$float": repr(v)}
            return v
        if isinstance(v, complex):
            return {"$complex": [self.value(v.real), self.value(v.imag)]}
        if isinstance(v, tuple):
            return {"$tuple": [self.value(x) for x in v]}
        if isinstance(v, list):
            return [self.value(x) for x in v]
        if isinstance(v, (set, frozenset)):
            return {"$set": sorted(self.value(x) for x in v)}
        if isinstance(v, nodes.Loc):
            return self.loc(v)
        if isinstance(v, (ScalarType, ArrayType, TupleType, NoneType, UnknownType, SliceType, DTypeType)):
            return self.type(v)
        if isinstance(v, Diagnostic):
            return {"$diagnostic": {f.name: self.value(getattr(v, f.name)) for f in dataclasses.fields(v)}}
        if isinstance(v, Note):
            return {"$note": {f.name: self.value(getattr(v, f.name)) for f in dataclasses.fields(v)}}
        if dataclasses.is_dataclass(v) and not isinstance(v, type):
            return self.node(v)
        if isinstance(v, dict):
            if any(not isinstance(k, str) or k.startswith("$") for k in v):
                return {"$dict": [[self.value(k), self.value(x)] for k, x in v.items()]}
            return {k: self.value(x) for k, x in v.items()}
        raise TypeError(f"cannot serialize {type(v).__name__}: {v!r}")

    def loc(self, loc: nodes.Loc):
        if loc.file == self.path:
            return {"$loc": [loc.line, loc.col]}
        return {"$loc": [loc.file, loc.line, loc.col]}

    def type(self, t):
        if isinstance(t, ScalarType):
            return {"$scalar": t.name}
        if isinstance(t, ArrayType):
            return {"$array": [t.dtype.name, t.ndim, t.layout, t.readonly]}
        if isinstance(t, TupleType):
            return {"$tupletype": [self.type(e) for e in t.elements]}
        if isinstance(t, DTypeType):
            return {"$dtype": t.dtype.name}
        return {"$type": str(t)}

    def node(self, obj):
        cls = type(obj)
        tag = cls.__name__ if _NODE_CLASSES.get(cls.__name__) is cls else f"{cls.__module__}:{cls.__qualname__}"
        out = {"$node": tag}
        for f in dataclasses.fields(obj):
            out[f.name] = self.value(getattr(obj, f.name))
        return out


class _Decoder:
    def __init__(self, path: str):
        self.path = path

    def value(self, v):
        if isinstance(v, list):
            return [self.value(x) for x in v]
        if not isinstance(v, dict):
            return v
        if "$node" in v:
            return self.node(v)
        if "$loc" in v:
            parts = v["$loc"]
            if len(parts) == 2:
                return nodes.Loc(self.path, parts[0], parts[1])
            return nodes.Loc(*parts)
        if "$float" in v:
            return float(v["$float"])
        if "$complex" in v:
            return complex(self.value(v["$complex"][0]), self.value(v["$complex"][1]))
        if "$tuple" in v:
            return tuple(self.value(x) for x in v["$tuple"])
        if "$set" in v:
            return set(self.value(x) for x in v["$set"])
        if "$dict" in v:
            return {self.value(k): self.value(x) for k, x in v["$dict"]}
        if "$diagnostic" in v:
            return Diagnostic(**{k: self.value(x) for k, x in v["$diagnostic"].items()})
        if "$note" in v:
            return Note(**{k: self.value(x) for k, x in v["$note"].items()})
        for key in ("$scalar", "$array", "$tupletype", "$dtype", "$type"):
            if key in v:
                return self.type(v)
        return {k: self.value(x) for k, x in v.items()}

    def type(self, v):
        if "$scalar" in v:
            return scalar(v["$scalar"])
        if "$array" in v:
            dtype, ndim, layout, readonly = v["$array"]
            return ArrayType(scalar(dtype), ndim, layout, readonly)
        if "$tupletype" in v:
            return TupleType(tuple(self.type(e) for e in v["$tupletype"]))
        if "$dtype" in v:
            return DTypeType(scalar(v["$dtype"]))
        simple = {"none": NONE, "?": UNKNOWN, "slice": SLICE}
        if v.get("$type") in simple:
            return simple[v["$type"]]
        raise IRFormatError(f"unknown type {v!r}")

    def node(self, v):
        tag = v["$node"]
        if tag in _NODE_CLASSES:
            cls = _NODE_CLASSES[tag]
        else:
            module_name, _, qualname = tag.partition(":")
            if not module_name.startswith("kpc."):
                raise IRFormatError(f"refusing to load node class {tag!r} from outside kpc")
            cls = importlib.import_module(module_name)
            for part in qualname.split("."):
                cls = getattr(cls, part)
        names = {f.name for f in dataclasses.fields(cls)}
        kwargs = {k: self.value(x) for k, x in v.items() if k != "$node" and k in names}
        return cls(**kwargs)


def to_dict(module: Module) -> dict:
    encoder = _Encoder(module.path)
    return {
        "kpc_ir": FORMAT_VERSION,
        "path": module.path,
        "source": module.source,
        "imports": encoder.value(module.imports),
        "functions": [encoder.node(f) for f in module.functions.values()],
        "rejected": [{"name": r.name, "diagnostic": encoder.value(r.diagnostic), "loc": encoder.loc(r.loc)}
                     for r in module.rejected.values()],
    }


def to_json(module: Module, indent: int | None = None) -> str:
    """The module as JSON text (``indent`` as for ``json.dumps``)."""
    return json.dumps(to_dict(module), indent=indent)


def from_dict(data: dict) -> Module:
    if not isinstance(data, dict) or data.get("kpc_ir") != FORMAT_VERSION:
        found = data.get("kpc_ir") if isinstance(data, dict) else type(data).__name__
        raise IRFormatError(f"not a kpc IR module of format {FORMAT_VERSION} (found {found!r})")
    decoder = _Decoder(data["path"])
    module = Module(data["path"], data["source"], imports=decoder.value(data["imports"]))
    for item in data["functions"]:
        module.add(decoder.node(item))
    for item in data["rejected"]:
        diagnostic = decoder.value(item["diagnostic"])
        module.rejected[item["name"]] = Rejected(item["name"], diagnostic, decoder.value(item["loc"]))
    module.rebuild_callgraph()
    return module


def from_json(text: str) -> Module:
    """The module encoded by ``to_json``."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise IRFormatError(f"not JSON: {err}") from None
    return from_dict(data)
