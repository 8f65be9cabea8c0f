"""Typed, annotated IR built by hand for backend tests that must not depend on the frontend:
what the ``kokkos`` pipeline makes of ``sum2d`` and of the Lennard-Jones kernel."""

from __future__ import annotations

from kpc.ir.module import Module
from kpc.ir.nodes import (
    Assign, AugAssign, BinOp, Call, Const, For, Function, Index, Loc, Name, Param, ParallelInfo,
    ReductionSpec, Return, TupleExpr, Attribute,
)
from kpc.ir.types import FLOAT64, INT64, ArrayType, TupleType


def _loc(path, line):
    return Loc(path, line, 4)


def sum2d_module(dtype=FLOAT64, layout="C", path="sum2d.py") -> Module:
    arr_t = ArrayType(dtype, 2, layout)
    L = lambda line: _loc(path, line)  # noqa: E731
    arr = lambda: Name("arr", arr_t, L(13))  # noqa: E731
    i, j = Name("i", INT64, L(15)), Name("j", INT64, L(16))
    body = [
        Assign(TupleExpr([Name("M", INT64), Name("N", INT64)], TupleType((INT64, INT64))),
               Attribute(arr(), "shape", TupleType((INT64, INT64))), L(13)),
        Assign(Name("result", FLOAT64), Const(0.0, FLOAT64), L(14)),
        For(i, Const(0, INT64), Name("M", INT64), Const(1, INT64), [
            For(j, Const(0, INT64), Name("N", INT64), Const(1, INT64), [
                AugAssign(Name("result", FLOAT64), "+",
                          Index(arr(), [Name("i", INT64), Name("j", INT64)], dtype, L(17)), loc=L(17)),
            ], loc=L(16)),
        ], loc=L(15)),
        Return(Name("result", FLOAT64), L(18)),
    ]
    f = Function("sum2d", [Param("arr", arr_t)], body, FLOAT64,
                 locals={"M": INT64, "N": INT64, "result": FLOAT64, "i": INT64, "j": INT64},
                 loc=L(11), docstring=None)
    m = Module(path, "")
    m.add(f)
    m.rebuild_callgraph()
    return m


def lennard_jones_module(dtype=FLOAT64, layout="C", path="lennard_jones.py", serial_below=None) -> Module:
    """``potential`` with a dynamic-schedule sum reduction over a prange, ``distance`` and ``lj``
    as device functions, powers already simplified (``** 0.5`` -> sqrt, ``** 6`` kept for pow_n)."""
    L = lambda line: _loc(path, line)  # noqa: E731
    row_t = ArrayType(dtype, 1, "A")
    a1, a2 = (lambda: Name("atom1", row_t)), (lambda: Name("atom2", row_t))  # noqa: E731
    el = lambda a, k: Index(a(), [Const(k, INT64)], dtype)  # noqa: E731
    diff = lambda k: BinOp("-", el(a2, k), el(a1, k), dtype)  # noqa: E731
    sq = lambda v: BinOp("*", Name(v, dtype), Name(v, dtype), dtype)  # noqa: E731
    distance = Function("distance", [Param("atom1", row_t), Param("atom2", row_t)], [
        Assign(Name("dx", dtype), diff(0), L(15)),
        Assign(Name("dy", dtype), diff(1), L(16)),
        Assign(Name("dz", dtype), diff(2), L(17)),
        Assign(Name("r", dtype), Call("sqrt", [BinOp("+", BinOp("+", sq("dx"), sq("dy"), dtype), sq("dz"), dtype)],
                                      "math", type=dtype), L(18)),
        Return(Name("r", dtype), L(19)),
    ], dtype, locals={"dx": dtype, "dy": dtype, "dz": dtype, "r": dtype}, role="device", loc=L(14))
    lj = Function("lj", [Param("r", dtype)], [
        Assign(Name("sr6", FLOAT64), BinOp("**", BinOp("/", Const(1.0, FLOAT64), Name("r", dtype), FLOAT64),
                                           Const(6, INT64), FLOAT64), L(24)),
        Assign(Name("pot", FLOAT64), BinOp("*", Const(4.0, FLOAT64), BinOp(
            "-", BinOp("*", Name("sr6", FLOAT64), Name("sr6", FLOAT64), FLOAT64), Name("sr6", FLOAT64), FLOAT64),
            FLOAT64), L(25)),
        Return(Name("pot", FLOAT64), L(26)),
    ], FLOAT64, locals={"sr6": FLOAT64, "pot": FLOAT64}, role="device", loc=L(23))
    cluster_t = ArrayType(dtype, 2, layout)
    cluster = lambda: Name("cluster", cluster_t)  # noqa: E731
    length = lambda: Call("len", [cluster()], "builtin", type=INT64)  # noqa: E731
    i, j = Name("i", INT64), Name("j", INT64)
    inner = For(j, BinOp("+", Name("i", INT64), Const(1, INT64), INT64), length(), Const(1, INT64), [
        Assign(Name("r", FLOAT64), Call("distance", [Index(cluster(), [Name("i", INT64)], row_t),
                                                     Index(cluster(), [Name("j", INT64)], row_t)],
                                        "kernel", type=dtype), L(34)),
        Assign(Name("e", FLOAT64), Call("lj", [Name("r", FLOAT64)], "kernel", type=FLOAT64), L(35)),
        AugAssign(Name("energy", FLOAT64), "+", Name("e", FLOAT64), loc=L(36)),
    ], loc=L(33))
    outer = For(i, Const(0, INT64), BinOp("-", length(), Const(1, INT64), INT64), Const(1, INT64), [inner],
                kind="prange", loc=L(32),
                parallel=ParallelInfo("reduce", "Range", 1, [ReductionSpec("energy", "sum", FLOAT64)],
                                      schedule="dynamic", captures=["cluster"], privates=["e", "j", "r"],
                                      serial_below=serial_below))
    potential = Function("potential", [Param("cluster", cluster_t)], [
        Assign(Name("energy", FLOAT64), Const(0.0, FLOAT64), L(31)),
        outer,
        Return(Name("energy", FLOAT64), L(37)),
    ], FLOAT64, options={"parallel": True},
        locals={"energy": FLOAT64, "i": INT64, "j": INT64, "r": FLOAT64, "e": FLOAT64}, loc=L(30))
    if dtype != FLOAT64:
        potential.locals["r"] = FLOAT64
    m = Module(path, "")
    for f in (distance, lj, potential):
        m.add(f)
    m.rebuild_callgraph()
    return m
