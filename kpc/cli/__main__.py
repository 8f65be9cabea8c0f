"""``python -m kpc.cli``: the ``kpc`` command."""

import sys

from kpc.cli import main

sys.exit(main())
