"""How ``lower-numpy`` turns array-level IR into loops over scalars, one concern per module.

Statements: ``statements`` (assignments and stores into loop nests), ``local_arrays``
(views read through, arrays inlined at their uses, before lowering), ``loop_invariants``
(allocations and broadcast checks hoisted, after). Expressions, read element by element:
``elements`` (``ElementLowering``) with ``shapes``, ``broadcasting``, ``numpy_calls``,
``ufuncs``, ``reductions`` and ``products``; ``values`` and ``numpy_names`` hold what they share.
"""
