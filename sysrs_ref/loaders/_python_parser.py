"""One thread at a time in Python's parser: the loaders' parses of text as Python literals hold :data:`PARSER`.

numpy reads a ``.npy`` header with ``ast.literal_eval`` (:mod:`sysrs_ref.loaders.arrays`), and lighteval's
details may store a metric object as a Python literal (:mod:`sysrs_ref.loaders.lighteval`). CPython 3.11.0 to
3.11.7 and 3.12.0 to 3.12.1 count the depth of the tree that ``ast`` builds in one counter shared by every
thread (CPython gh-106905, fixed in 3.11.8 and 3.12.2): when the garbage collector runs in the middle of a
parse and lets another thread parse meanwhile, the count comes back wrong and the parse fails with
``SystemError: AST constructor recursion depth mismatch``. Threads do parse at once here: a Dask worker runs
its pieces in threads, and each loads its matrix. Holding the lock, no two of the package's parses overlap;
a parse takes microseconds, so nothing waits noticeably.
"""

from __future__ import annotations

import threading

__all__ = ["PARSER"]

#: Held around every parse of text as Python (``ast``) that the loaders make.
PARSER = threading.Lock()
