"""IR built by hand, shaped like the pykokkos pipeline's output, for emitter tests that must not
depend on the frontend and passes (the corpus tests cover the real pipeline)."""

from __future__ import annotations

import os

from kpc.ir import nodes as n
from kpc.ir.module import Module
from kpc.ir.types import FLOAT64, INT64, ArrayType

CORPUS = os.path.join(os.path.dirname(__file__), "..", "..", "corpus")
F64_2D = ArrayType(FLOAT64, 2, "C")
F64_1D = ArrayType(FLOAT64, 1, "C")


def _source(stem: str) -> tuple[str, str]:
    path = os.path.normpath(os.path.join(CORPUS, f"{stem}.py"))
    with open(path) as f:
        return path, f.read()


def name(x, ty=INT64):
    return n.Name(x, type=ty)


def const(v):
    return n.Const(v, type=FLOAT64 if isinstance(v, float) else INT64)


def binop(op, a, b, ty=FLOAT64):
    return n.BinOp(op, a, b, type=ty)


def index(base, *idx, ty=FLOAT64):
    return n.Index(base, list(idx), type=ty)


def shape(arr, d, ty_arr):
    return n.Index(n.Attribute(arr, "shape"), [const(d)], type=INT64)


def loc(path, line):
    return n.Loc(path, line, 4)


def lennard_jones() -> Module:
    path, source = _source("lennard_jones")
    atom1, atom2 = name("atom1", F64_1D), name("atom2", F64_1D)
    dx, dy, dz, r = (name(x, FLOAT64) for x in ("dx", "dy", "dz", "r"))
    distance = n.Function(
        "distance", [n.Param("atom1", F64_1D), n.Param("atom2", F64_1D)],
        [
            n.Assign(dx, binop("-", index(atom2, const(0)), index(atom1, const(0))), loc(path, 15)),
            n.Assign(dy, binop("-", index(atom2, const(1)), index(atom1, const(1))), loc(path, 16)),
            n.Assign(dz, binop("-", index(atom2, const(2)), index(atom1, const(2))), loc(path, 17)),
            n.Assign(r, n.Call("math.sqrt", [binop("+", binop("+", binop("*", dx, dx), binop("*", dy, dy)),
                                                    binop("*", dz, dz))], kind="math", type=FLOAT64), loc(path, 18)),
            n.Return(r, loc(path, 19)),
        ],
        return_type=FLOAT64, role="device", loc=loc(path, 14),
        locals={"dx": FLOAT64, "dy": FLOAT64, "dz": FLOAT64, "r": FLOAT64},
    )
    rr = name("r", FLOAT64)
    sr = name("sr", FLOAT64)
    sr6 = name("sr6", FLOAT64)
    pot = name("pot", FLOAT64)
    sr2 = binop("*", sr, sr)
    lj = n.Function(
        "lj", [n.Param("r", FLOAT64)],
        [
            n.Assign(sr, binop("/", const(1.0), rr), loc(path, 24)),
            n.Assign(sr6, binop("*", binop("*", sr2, sr2), sr2), loc(path, 24)),
            n.Assign(pot, binop("*", const(4.0), binop("-", binop("*", sr6, sr6), sr6)), loc(path, 25)),
            n.Return(pot, loc(path, 26)),
        ],
        return_type=FLOAT64, role="device", loc=loc(path, 23),
        locals={"sr": FLOAT64, "sr6": FLOAT64, "pot": FLOAT64},
    )
    cluster = name("cluster", F64_2D)
    i, j = name("i"), name("j")
    energy, e = name("energy", FLOAT64), name("e", FLOAT64)
    ri, rj = name("ri", F64_1D), name("rj", F64_1D)
    length = n.Call("len", [cluster], kind="builtin", type=INT64)
    inner = n.For(j, binop("+", i, const(1), INT64), length, const(1), [
        n.Assign(ri, n.Index(cluster, [i, n.Slice()], type=F64_1D), loc(path, 34)),
        n.Assign(rj, n.Index(cluster, [j, n.Slice()], type=F64_1D), loc(path, 34)),
        n.Assign(rr, n.Call("distance", [ri, rj], type=FLOAT64), loc(path, 34)),
        n.Assign(e, n.Call("lj", [rr], type=FLOAT64), loc(path, 35)),
        n.AugAssign(energy, "+", e, loc=loc(path, 36)),
    ], loc=loc(path, 33))
    outer = n.For(i, const(0), binop("-", length, const(1), INT64), const(1), [inner], kind="prange",
                  parallel=n.ParallelInfo("reduce", reductions=[n.ReductionSpec("energy", "sum", FLOAT64)]),
                  loc=loc(path, 32))
    potential = n.Function(
        "potential", [n.Param("cluster", F64_2D)],
        [n.Assign(energy, const(0.0), loc(path, 31)), outer, n.Return(energy, loc(path, 37))],
        return_type=FLOAT64, options={"parallel": True}, role="entry", loc=loc(path, 30),
        locals={"energy": FLOAT64, "r": FLOAT64, "e": FLOAT64, "ri": F64_1D, "rj": F64_1D},
    )
    module = Module(path, source)
    for f in (distance, lj, potential):
        module.add(f)
    module.rebuild_callgraph()
    return module


def sum2d() -> Module:
    """sum2d after flatten-mdrange: one Range reduction over t in [0, M*N)."""
    path, source = _source("sum2d")
    arr = name("arr", F64_2D)
    M, N, t = name("M"), name("N"), name("t")
    i, j = name("i"), name("j")
    result = name("result", FLOAT64)
    loop = n.For(t, const(0), binop("*", M, N, INT64), const(1), [
        n.Assign(i, binop("//", t, N, INT64), loc(path, 15)),
        n.Assign(j, binop("%", t, N, INT64), loc(path, 16)),
        n.AugAssign(result, "+", index(arr, i, j), loc=loc(path, 17)),
    ], kind="range", parallel=n.ParallelInfo("reduce", reductions=[n.ReductionSpec("result", "sum", FLOAT64)]),
        loc=loc(path, 15))
    fn = n.Function(
        "sum2d", [n.Param("arr", F64_2D)],
        [
            n.Assign(n.TupleExpr([M, N]), n.Attribute(arr, "shape"), loc(path, 13)),
            n.Assign(result, const(0.0), loc(path, 14)),
            loop,
            n.Return(result, loc(path, 18)),
        ],
        return_type=FLOAT64, role="entry", loc=loc(path, 12),
        locals={"M": INT64, "N": INT64, "result": FLOAT64, "i": INT64, "j": INT64},
    )
    module = Module(path, source)
    module.add(fn)
    module.rebuild_callgraph()
    return module
