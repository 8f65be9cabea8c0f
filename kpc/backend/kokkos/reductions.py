"""Reductions and scans of Kokkos regions: accumulator structs, their join lines, the two passes of a scan."""

from __future__ import annotations

from dataclasses import dataclass

from kpc.ir import nodes as n

from .cxx import BackendError, identifier, literal, scalar_type


@dataclass
class AccumulatorModel:
    """A struct holding the reduction variables of one region (see ``kpc::Reduce``)."""

    name: str
    fields: list  # (cxx type, name, identity, join statement)


IDENTITY = {
    "sum": lambda t: literal(0, t),
    "prod": lambda t: literal(1, t),
    "min": lambda t: f"kpc::min_identity<{scalar_type(t)}>()",
    "max": lambda t: f"kpc::max_identity<{scalar_type(t)}>()",
}


def _join(op: str, t, field_: str) -> str:
    if op == "sum":
        return f"{field_} += other.{field_};"
    if op == "prod":
        return f"{field_} *= other.{field_};"
    return f"{field_} = kpc::{op}<{scalar_type(t)}>({field_}, other.{field_});"


def _writes_memory(stmt) -> bool:
    for node in n.walk(stmt):
        if isinstance(node, (n.Assign, n.AugAssign)) and isinstance(node.target, n.Index):
            return True
        if isinstance(node, n.Call) and node.kind == "kernel":
            return True
    return False


class CombinationEmitter:
    """How the regions of a ``FunctionEmitter`` combine their iterations: a reduction into an
    accumulator struct, a scan, or nothing (a ``for``)."""

    def combination(self, loop, k: int, setup: list, lambda_params: list, prologue: list) -> tuple:
        """``(pattern, acc_type, scan_type, call_args, combine)`` of region ``k``: the Kokkos pattern
        it launches, its accumulator struct or scan type, the arguments its serial path passes the
        body, and the lines that combine the result into the variables after the launch. Adds the
        lambda's accumulator or scan parameters to ``lambda_params`` (and their setup and prologue)."""
        info = loop.parallel
        acc_type, scan_type, combine = "", "", []
        if info.pattern == "reduce" and info.reductions:
            acc_type = f"{self.function.name}_acc{k}"
            for _, ct, field_, line in self.accumulator(acc_type, info.reductions, f"kpc_result{k}", loop.loc):
                prologue.append(f"{ct}& {field_} = kpc_acc.{field_};")
                combine.append(line)
            lambda_params.append(f"{acc_type}& kpc_acc")
            call_args = ", ".join(l.split()[-1] for l in lambda_params[:-1]) + f", kpc_result{k}"
            pattern = "reduce"
        elif info.pattern == "scan" and info.scan is not None:
            t = self.type_of(info.scan.var)
            scan_type = scalar_type(t)
            scan_var = identifier(info.scan.var)
            setup.append(f"const {scan_type} kpc_scan_init{k} = {scan_var};")
            lambda_params.append(f"{scan_type}& {scan_var}")
            lambda_params.append("const bool kpc_final")
            call_args = ", ".join(l.split()[-1] for l in lambda_params[:-2]) + f", kpc_total{k}, true"
            combine.append(f"{scan_var} = kpc_scan_init{k} + kpc_total{k};")
            pattern = "scan"
        else:
            call_args = ", ".join(l.split()[-1] for l in lambda_params)
            pattern = "for"
        return pattern, acc_type, scan_type, call_args, combine

    def accumulator(self, acc_type: str, reductions: list, result: str, loc) -> list:
        """Declare the struct ``acc_type`` holding ``reductions``; ``(var, C++ type, field, line that
        combines the reduced value held in ``result`` into the variable)`` per reduction."""
        fields, parts = [], []
        for r in reductions:
            t = self.type_of(r.var)
            if r.op not in IDENTITY:
                raise BackendError(f"reduction operator {r.op!r} is not supported", loc)
            field_ = identifier(r.var)
            fields.append((scalar_type(t), field_, IDENTITY[r.op](t), _join(r.op, t, field_)))
            reduced = f"{result}.{field_}"
            if r.op == "sum":
                line = f"{field_} += {reduced};"
            elif r.op == "prod":
                line = f"{field_} *= {reduced};"
            else:
                line = f"{field_} = kpc::{r.op}<{scalar_type(t)}>({field_}, {reduced});"
            parts.append((r.var, scalar_type(t), field_, line))
        self.accumulators.append(AccumulatorModel(acc_type, fields))
        return parts


    def scan_body(self, body, var, k) -> None:
        """Statements of a scan: updates of the scan variable run in both passes; everything that
        writes memory runs only in the final pass, where the variable holds the prefix."""
        for stmt in body:
            is_update = isinstance(stmt, n.AugAssign) and isinstance(stmt.target, n.Name) and stmt.target.id == var
            if is_update or not _writes_memory(stmt):
                self.statement(stmt)
                continue
            self.overrides[var] = f"(kpc_scan_init{k} + {identifier(var)})"
            self.emit_line("if (kpc_final) {")
            self.depth += 1
            self.last_line = None
            self.statement(stmt)
            self.depth -= 1
            self.emit_line("}")
            del self.overrides[var]

