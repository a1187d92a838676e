"""``python -m sysrs_ref``: the command line (see :mod:`sysrs_ref.cli`)."""

import sys

from sysrs_ref.cli import main

if __name__ == "__main__":
    sys.exit(main())
