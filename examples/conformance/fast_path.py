"""sysrs-ref's own implementation behind the conformance protocol (the numpy fast path for algorithm cases).

    python -m sysrs_ref conform -- python examples/conformance/fast_path.py

It is ``python -m sysrs_ref.conformance.adapter`` (what ``conform --reference`` runs), as a file: a
Python codebase can start from it and call its own implementation in ``answer``.
"""

from sysrs_ref.conformance.adapter import main

raise SystemExit(main())
