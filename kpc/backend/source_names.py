"""The source module's dunder names that a drop-in module resolves from it, found without importing it.

Both targets' output modules answer a missing name from the user's module, imported on first
use; Python's own probes (``__path__``, ``__wrapped__``, ...) must not import it, so only the
dunders the source assigns at top level are resolved that way.
"""

from __future__ import annotations

import ast

from kpc.ir import python_source


def source_dunders(source: str) -> tuple:
    """The ``__name__``-style names the module's top level assigns, but ``__all__`` and ``__doc__``.

    The drop-in module resolves these from the source module (``__version__``); other dunders
    it is asked for are Python's probes, answered without importing the source.

    >>> source_dunders("__version__ = '1.0'\\n__all__ = ['f']\\n__author__: str = 'me'\\n")
    ('__author__', '__version__')
    """
    try:
        tree = python_source.parse(source)
    except SyntaxError:
        return ()
    names = set()
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, (ast.AnnAssign, ast.AugAssign)) else []
        names.update(t.id for t in targets if isinstance(t, ast.Name))
    return tuple(sorted(name for name in names if name.startswith("__") and name.endswith("__")
                        and name not in ("__all__", "__doc__")))
