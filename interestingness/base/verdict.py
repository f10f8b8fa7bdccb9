"""The one type every oracle returns: the engine reads only this."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from .bundle import Tree

# What a verdict says of the candidate besides its answer (`Verdict.kind`), in words any oracle
# may use: the reducer counts, per pass, the candidates that did not compile, and knows no more.
UNKNOWN = "unknown"            # the oracle cannot tell (a script's exit status says nothing of why)
COMPILE_ERROR = "compile-error"  # the candidate does not compile
BUILT = "built"                # it compiled, and was judged on what was built
TIMEOUT = "timeout"
INFRA = "infra"                # a failure of the machinery


@dataclass(frozen=True)
class Verdict:
    """Outcome of one interestingness test.

    `infra_failure` marks a failure of the machinery (tool killed by a signal, out of memory,
    disk full) rather than an answer about the candidate: such a verdict is never cached and
    the test may be retried. A compile error or a timeout is an answer (`interesting=False`).
    `kind` is one of the words above: whether the candidate compiled, where the oracle knows.
    """

    interesting: bool
    reason: str = ""
    infra_failure: bool = False
    seconds: float = 0.0
    details: dict[str, Any] = field(default_factory=dict)
    kind: str = UNKNOWN


class Oracle(Protocol):
    """Decides whether a candidate is still interesting. Knows nothing about passes."""

    # (The attributes are read-only properties here, so that an oracle may declare them as
    # narrower constants: `tree = None`, `confirm_steps = 0`.)

    @property
    def ignores_layout(self) -> bool:
        """True when whitespace and comments cannot change a verdict as long as lines stay lines
        (a compiler's view; not a script's, which may grep anything). Lets the reducer give
        layout-only variants of a tested candidate the same verdict without a test."""

    @property
    def tree(self) -> Tree | None:
        """The tree whose file sets (interestingness.base.bundle) are the candidates; None when a
        candidate is the one file under reduction."""

    @property
    def confirm_steps(self) -> int:
        """How many independent checks `confirm` makes, for checks too costly to run on every
        candidate (0: none; see NoConfirmation)."""

    @property
    def confirm_cost(self) -> float:
        """What a confirmation costs, in tests (how many kept candidates a batch confirms at
        once depends on it: reducer/engine/checkpoints.py)."""

    def identity(self) -> dict[str, Any]:
        """Everything besides the candidate's bytes that decides a verdict (for cache keys)."""

    def test(self, content: bytes) -> Verdict:
        """Test one candidate of the file under reduction. Must be safe to call concurrently."""

    def confirm(self, content: bytes, verdict: Verdict, step: int) -> Verdict:
        """Check `step` of a candidate about to be kept, whose `test` gave the interesting
        `verdict`. The evaluator may run the steps in parallel; the candidate is kept when every
        step says interesting (the spill oracle's init guard: one step per initialisation mode)."""


class NoConfirmation:
    """For an oracle whose `test` is the whole check: `confirm` is never called."""

    confirm_steps = 0
    confirm_cost = 0.0

    def confirm(self, content: bytes, verdict: Verdict, step: int) -> Verdict:
        return verdict
