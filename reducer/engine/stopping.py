"""Stopping on Ctrl-C or SIGTERM without ever losing the signal.

The handler raises KeyboardInterrupt at once, so a blocking wait (a compile, a joblib batch)
ends promptly. Python delivers that exception wherever the main thread happens to be, and when
that is inside a finaliser or a library's callback (`__del__`, loky's future callbacks) it is
printed as "Exception ignored" and lost. So the handler also records the request, and the
evaluator calls `check()` before each batch of the engine's candidates: a lost interrupt is raised again there.
"""
from __future__ import annotations

import signal
import threading

_requested = threading.Event()


def install() -> None:
    """Make SIGINT and SIGTERM (a job scheduler's kill) stop the run the same way."""
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, _handler)


def _handler(signum, frame) -> None:
    _requested.set()
    raise KeyboardInterrupt


def check() -> None:
    """Raise KeyboardInterrupt again when a stop was requested."""
    if _requested.is_set():
        raise KeyboardInterrupt
