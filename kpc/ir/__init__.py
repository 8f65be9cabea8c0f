"""The typed kernel IR: types, nodes, module with call graph, printer, verifier."""
