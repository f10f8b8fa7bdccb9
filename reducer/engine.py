"""The C-Reduce-style fixpoint: run the schedule's passes, each over ddmin chunks of its items,
keep every candidate the evaluator calls interesting, repeat until a sweep changes nothing.

The engine knows nothing about HIP, files or the oracle: candidates go to an Evaluator, the
best-so-far goes to `on_accept`, and progress to `on_event`. A candidate may be made of several
parts (a file set: `reduce_parts`); the engine then reduces one part at a time, each sweep
running the schedule over every part in turn, and `join` makes the candidate the evaluator
sees from the parts (the one being reduced, the others at their current best).
"""
from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field
from itertools import chain
from typing import Callable, Iterator, Sequence

from .edits import Item, apply
from .evaluate import Evaluator
from .passes import Pass
from .source import Source


@dataclass
class PassYield:
    accepted: int = 0
    bytes_removed: int = 0
    tests: int = 0
    seconds: float = 0.0


@dataclass
class Status:
    original_size: int
    size: int
    accepted: int = 0
    prefiltered: int = 0
    current_pass: str = ""
    part: int = 0             # which part is being reduced (reduce_parts), of `parts`
    parts: int = 1
    sweep: int = 0            # how many times the main list has run (the schedule position)
    started: float = field(default_factory=time.monotonic)
    per_pass: dict[str, PassYield] = field(default_factory=dict)
    stalls: list[dict] = field(default_factory=list)  # checks of a best file that stopped moving


class Engine:
    def __init__(
        self,
        evaluator: Evaluator,
        language: str,
        *,
        first: Sequence[Pass],
        main: Sequence[Pass],
        last: Sequence[Pass] = (),
        prefilter: bool = True,
        on_accept: Callable[[bytes], None] = lambda text: None,
        on_event: Callable[[str, Status], None] = lambda kind, status: None,
        pass_time_cap: float | None = None,
        caps: dict[int, int] | None = None,
        stall_window: int = 300,
        values=None,
    ):
        self.evaluator = evaluator
        self.language = language
        self.first, self.main, self.last = list(first), list(main), list(last)
        self.prefilter = prefilter
        self.on_accept, self.on_event = on_accept, on_event
        self.best: Source | None = None  # the part being reduced
        self.parts: list[bytes] = []
        self._part = 0
        self._join: Callable[[list[bytes]], bytes] = lambda parts: parts[0]
        self.status: Status | None = None
        # A pass run longer than pass_time_cap is cut short. Where a cut fell is recorded in
        # `caps` (pass-run index -> searches made), so a resumed run replays the same cut.
        self.pass_time_cap = pass_time_cap
        self.caps: dict[int, int] = dict(caps or {})
        self._pass_runs = 0
        # When `stall_window` verdicts in a row fail the same way, the best is tested afresh; if it
        # is not interesting after all, the run goes back to the newest earlier best that is.
        self.stall_window = stall_window
        self._earlier: deque[list[bytes]] = deque(maxlen=8)
        # Constant values from the compiler (reducer/values.py), for the passes that fold: bound
        # to each best part as the `values` of its Source. None: they use the tree evaluator.
        self.values = values

    def reduce(self, text: bytes) -> bytes:
        """Reduce `text`, which the caller has already found interesting."""
        return self.reduce_parts([text], [self.language], lambda parts: parts[0])

    def reduce_parts(self, parts: Sequence[bytes], languages: Sequence[str],
                     join: Callable[[list[bytes]], bytes]) -> bytes:
        """Reduce a candidate made of `parts` (`join(parts)` is interesting already): the first
        passes over each part, then sweeps of the main passes over each part in turn until a
        sweep changes no part, then the last passes over each part. Returns the joined result."""
        self.parts, self._languages, self._join = list(parts), list(languages), join
        self._earlier.clear()
        self._start = list(parts)
        size = sum(map(len, self.parts))
        self.status = Status(original_size=size, size=size, parts=len(self.parts))
        self._over_parts(self.first)
        while True:
            self.status.sweep += 1
            before = list(self.parts)
            self._over_parts(self.main)
            if self.parts == before:
                break
        self._over_parts(self.last)
        return self.result()

    def result(self) -> bytes:
        return self._join(list(self.parts))

    def _over_parts(self, schedule: Sequence[Pass]) -> None:
        for i in range(len(self.parts)):
            self._part = self.status.part = i
            self.best = self._source(self.parts[i])
            for p in schedule:
                self._run_pass(p)

    def _run_pass(self, p: Pass) -> None:
        if p.needs_tree and self.best.tree is None:
            return
        self.status.current_pass = p.name
        stats = self.status.per_pass.setdefault(p.name, PassYield())
        start, tests = time.monotonic(), self.evaluator.counters.tests
        self.on_event("pass", self.status)
        clock = _PassClock(self._pass_runs, self.caps.get(self._pass_runs),
                           start + self.pass_time_cap if self.pass_time_cap else None)
        self._pass_runs += 1
        round = 0
        try:
            while (items := p.items(self.best, round)) is not None:
                self._ddmin(p, round, items, stats, clock)
                round += 1
        except _Capped:
            self.caps[clock.run] = clock.searches
            self.on_event("capped", self.status)
        stats.seconds += time.monotonic() - start
        stats.tests += self.evaluator.counters.tests - tests

    def _ddmin(self, p: Pass, round: int, items: list[Item], stats: PassYield, clock: "_PassClock") -> None:
        """Chunks of consecutive items, biggest first; after an accepted chunk the items are
        enumerated afresh and the search goes on at the same position."""
        size = min(len(items), p.max_chunk or len(items))
        while size >= 1 and items:
            pos = 0
            while pos < len(items):
                clock.tick()
                found = self.evaluator.first_interesting(self._candidates(items, pos, size))
                if found is None:
                    if self.evaluator.stalled(self.stall_window) and self._roll_back_if_broken():
                        items = p.items(self.best, round) or []
                        continue
                    break
                index = found[0]
                start = pos + index * size  # the part's candidate again: the evaluator saw it joined
                self._accept(apply(self.best.text, chain.from_iterable(items[start:start + size])), stats)
                pos += index * size
                items = p.items(self.best, round) or []
            size //= 2

    def _candidates(self, items: list[Item], pos: int, size: int) -> Iterator[bytes | None]:
        """Candidates for chunks starting at pos, pos+size, ...; a chunk that is no smaller or
        adds parse errors is None: rejected without a test."""
        text = self.best.text
        for start in range(pos, len(items), size):
            candidate = apply(text, chain.from_iterable(items[start:start + size]))
            ok = len(candidate) < len(text) and self._syntax_ok(candidate)
            yield self._joined(candidate) if ok else None

    def _joined(self, candidate: bytes) -> bytes:
        parts = list(self.parts)
        parts[self._part] = candidate
        return self._join(parts)

    def _syntax_ok(self, candidate: bytes) -> bool:
        if not self.prefilter or self.best.tree is None:
            return True
        if Source(candidate, self.best.language).error_count <= self.best.error_count:
            return True
        self.status.prefiltered += 1
        return False

    def _accept(self, content: bytes, stats: PassYield) -> None:
        stats.accepted += 1
        stats.bytes_removed += len(self.best.text) - len(content)
        self._earlier.append(list(self.parts))
        self._set_parts(self.parts[:self._part] + [content] + self.parts[self._part + 1:])
        self.status.accepted += 1
        self.on_event("accept", self.status)

    def _set_parts(self, parts: list[bytes]) -> None:
        self.parts = parts
        self.best = self._source(parts[self._part])
        self.status.size = sum(map(len, parts))
        self.on_accept(self.result())

    def _source(self, text: bytes) -> Source:
        """The part being reduced, `text`, as a Source whose `values` ask about the candidate it
        makes (a probe goes at the end of the first part: the file, or a file set's main file)."""
        values = None
        if self.values is not None:
            parts, part, join = list(self.parts), self._part, self._join

            def compose(probe: bytes) -> bytes:
                each = parts[:part] + [text] + parts[part + 1:]
                return join([each[0] + probe, *each[1:]])

            values = self.values.bind(compose)
        return Source(text, self._languages[self._part], values=values)

    def _roll_back_if_broken(self) -> bool:
        """Test the best afresh; when it is not interesting (a wrong verdict was cached, or the test
        is flaky), go back to the newest earlier best that is, and say so. True if it went back."""
        verdict = self.evaluator.retest(self.result())
        stall = {"size": self.status.size, "best_interesting": verdict.interesting, "reason": verdict.reason[:300]}
        self.status.stalls.append(stall)
        if verdict.interesting:
            self.on_event("stall", self.status)
            return False
        while self._earlier:
            parts = self._earlier.pop()
            if self.evaluator.retest(self._join(parts)).interesting:
                break
        else:
            parts = self._start
        self._set_parts(list(parts))
        stall["rolled_back_to"] = self.status.size
        self.on_event("rollback", self.status)
        return True


class _Capped(Exception):
    pass


@dataclass
class _PassClock:
    """Counts one pass run's searches; stops it at a recorded count, or else at its deadline."""

    run: int
    limit: int | None
    deadline: float | None
    searches: int = 0

    def tick(self) -> None:
        if self.limit is not None:
            if self.searches >= self.limit:
                raise _Capped
        elif self.deadline is not None and time.monotonic() > self.deadline:
            raise _Capped
        self.searches += 1
