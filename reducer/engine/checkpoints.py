"""Confirmations in batches: the candidates the engine keeps form a chain from the last confirmed
one, and only at a checkpoint is the chain's newest confirmed (the oracle's costlier check, e.g.
the spill oracle's init and UB guards). When it fails, a bisection finds the first kept candidate
that fails; the run goes back to the one before it, and the refused candidate is never kept again.

Every checkpoint, and so every file written, passes the confirmation, at the cost of one
confirmation per batch instead of one per kept candidate. A batch of b saves (b-1) confirmations
but, when it holds a refused candidate, costs a bisection and the redone work of about half the
batch. So the batch is chosen from the run itself: the share of kept candidates refused so far
(p, Laplace-smoothed) and the candidates decided per kept step (W, the work a refusal throws
away), against a confirmation's cost (C, in oracle tests), minimising the expected cost per kept
candidate C/b + p*(b-1)/2*W + p*log2(b)*C over 1..`limit`. Where guards refuse often and kept
steps are cheap (a small kernel late in its reduction) that is 1; on real-size code, where a
confirmation costs several tests and few are refused, it grows. The batch also stays at 1 after a
refusal until the next confirmation passes, since refusals come in runs (one pass drops
initializers after another). Every input is a count of verdicts, so -j 1 and -j N and a resumed
run keep the same candidates."""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass


@dataclass
class Kept:
    """A kept candidate: the parts (of a file set; one for a file) and the candidate they join to."""

    parts: list[bytes]
    content: bytes
    by: str = ""      # the pass that made it ("" for a start)
    removed: int = 0  # the bytes it removed from the one kept before it


def batch_size(limit: int, confirm_cost: float, kept: int, refused: int, work: int) -> int:
    """The batch in 1..`limit` with the least expected cost per kept candidate, given `kept`
    candidates confirmed or refused so far, `refused` of them refused, `work` candidates decided
    to find them, and a confirmation costing `confirm_cost` tests."""
    p = (refused + 1) / (kept + 2)
    w = (work + 1) / (kept + 1)

    def cost(b: int) -> float:
        return confirm_cost / b + p * (b - 1) / 2 * w + p * math.log2(b) * confirm_cost

    return min(range(1, max(1, limit) + 1), key=cost)


class Checkpoints:
    def __init__(self, start: Kept, limit: int = 16, confirm_cost: float = 1.0):
        self.limit = max(1, limit)  # 1: every kept candidate confirmed at once
        self.confirm_cost = confirm_cost  # a confirmation's cost, in oracle tests
        self.confirmed = start      # the newest kept candidate known to pass
        self.chain: list[Kept] = []  # kept since, oldest first, none confirmed yet
        self._batch = 1
        self.refused = 0            # kept candidates whose confirmation failed (the run went back)
        self.decided = 0            # kept candidates whose confirmation is known (passed or refused)
        self.work = 0               # candidates decided to find the kept ones
        self.dropped: list[Kept] = []  # what the last settle threw away: the refused one and those after it

    def keep(self, kept: Kept, work: int = 1) -> None:
        """`kept` was found after `work` candidates were decided since the previous one."""
        self.chain.append(kept)
        self.work += work

    def due(self) -> bool:
        return len(self.chain) >= self._batch

    def settle(self, confirm: Callable[[bytes], bool]) -> Kept | None:
        """Confirm the chain through its newest (`confirm(content)`: passes or not). None when it
        passes (everything kept is confirmed now); else the newest kept candidate that passes, to
        go back to: the first refused one's predecessor (a bisection finds it); `dropped` holds
        the refused one and those after it."""
        self.dropped = []
        if not self.chain:
            return None
        if confirm(self.chain[-1].content):
            self.decided += len(self.chain)
            self.confirmed, self.chain = self.chain[-1], []
            self._batch = batch_size(self.limit, self.confirm_cost, self.decided, self.refused, self.work)
            return None
        good, bad = -1, len(self.chain) - 1  # chain indices; -1 is `confirmed`
        while bad - good > 1:
            mid = (good + bad) // 2
            if confirm(self.chain[mid].content):
                good = mid
            else:
                bad = mid
        if good >= 0:
            self.confirmed = self.chain[good]
        self.dropped = self.chain[good + 1:]
        self.decided += good + 2  # the ones that passed, and the refused one; the rest are dropped
        self.chain = []
        self._batch = 1
        self.refused += 1
        return self.confirmed
