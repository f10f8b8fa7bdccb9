"""Confirmations in batches: the candidates the engine keeps form a chain from the last confirmed
one, and only at a checkpoint is the chain's newest confirmed (the oracle's costlier check, e.g.
the spill oracle's init and UB guards). When it fails, a bisection finds the first kept candidate
that fails; the run goes back to the one before it, and the refused candidate is never kept again.

Every checkpoint, and so every file written, passes the confirmation, at the cost of one
confirmation per batch when none fails (most batches: a guard failure is rare) instead of one per
kept candidate. The batch grows while confirmations pass (1, 2, 4, ... up to `limit`) and starts
again at 1 after a failure, since failures come in runs (one pass drops initializers after
another). A function of the verdicts alone, so -j 1 and -j N and a resumed run keep the same
candidates."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass
class Kept:
    """A kept candidate: the parts (of a file set; one for a file) and the candidate they join to."""

    parts: list[bytes]
    content: bytes


class Checkpoints:
    def __init__(self, start: Kept, limit: int = 16):
        self.limit = max(1, limit)  # 1: every kept candidate confirmed at once
        self.confirmed = start      # the newest kept candidate known to pass
        self.chain: list[Kept] = []  # kept since, oldest first, none confirmed yet
        self._batch = 1
        self.refused = 0            # kept candidates whose confirmation failed (the run went back)

    def keep(self, kept: Kept) -> None:
        self.chain.append(kept)

    def due(self) -> bool:
        return len(self.chain) >= self._batch

    def settle(self, confirm: Callable[[bytes], bool]) -> Kept | None:
        """Confirm the chain through its newest (`confirm(content)`: passes or not). None when it
        passes (everything kept is confirmed now); else the newest kept candidate that passes, to
        go back to: the first refused one's predecessor (a bisection finds it)."""
        if not self.chain:
            return None
        if confirm(self.chain[-1].content):
            self.confirmed, self.chain = self.chain[-1], []
            self._batch = min(2 * self._batch, self.limit)
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
        self.chain = []
        self._batch = 1
        self.refused += 1
        return self.confirmed
