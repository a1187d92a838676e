"""``python -m sysrs_ref``: the command line (see :mod:`sysrs_ref.cli`)."""

import sys

from sysrs_ref.cli import main

sys.exit(main())
