"""The C-Reduce-style fixpoint: run the schedule's passes, each over ddmin chunks of its items,
keep every candidate the evaluator calls interesting, repeat until a sweep changes nothing.

The engine knows nothing about HIP, files or the oracle: candidates go to an Evaluator, the
best-so-far goes to `on_accept`, progress to `on_event`, and a pass that raises to `on_pass_bug`
(the pass is then dropped for the rest of the run, and the run goes on). A candidate may be
made of several parts (a file set: `reduce_parts`); the engine then reduces one part at a time,
each sweep running the schedule over every part in turn, and `join` makes the candidate the
evaluator sees from the parts (the one being reduced, the others at their current best).

Everything the engine decides follows from the verdicts alone, so a resumed run that replays
it with the journal answering takes the same path: where a pass was cut by its time cap or
dropped for a bug is recorded by pass-run index (`caps`, `bugs`) and replayed from there.
"""
from __future__ import annotations

import time
import traceback
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
    tests: int = 0          # oracle tests of its candidates, speculative and re-checks included
    answered: int = 0       # candidates answered by the persistent cache or another run's test
    not_smaller: int = 0    # rejected without a test: no smaller than the current file (nor the pass's progress)
    prefiltered: int = 0    # candidates rejected without a test: more parse errors than the current file
    seconds: float = 0.0


@dataclass
class PassBug:
    """A pass raised while enumerating its items or while they were applied."""

    number: int           # 1, 2, ... in the order the run met them
    pass_name: str
    run: int              # which pass run (the engine's count of them), as in `caps`
    searches: int         # the ddmin searches of that run made before it (a replay stops there)
    part: int             # which part it was reducing
    language: str         # the part's, as Source reads it
    level: int
    stage: str            # "items" or "apply"
    text: bytes           # the part's text the pass was given
    edits: list           # for "apply": the chunk's edits (Edit(start, end, replacement), if well made)
    traceback: str
    replayed: bool = False  # a resumed run met it again at the recorded point

    @property
    def error(self) -> str:
        """The traceback's last line: `ValueError: ...`."""
        lines = self.traceback.strip().splitlines()
        return lines[-1] if lines else "(recorded by an earlier session)"


@dataclass
class Status:
    original_size: int
    size: int
    accepted: int = 0
    prefiltered: int = 0
    current_pass: str = ""
    part: int = 0             # which part is being reduced (reduce_parts), of `parts`
    parts: int = 1
    sweep: int = 0            # how many times the main list (or, adaptively, a part of it) has run
    full_sweep: bool = True   # whether that sweep runs every main pass
    started: float = field(default_factory=time.monotonic)
    per_pass: dict[str, PassYield] = field(default_factory=dict)
    stalls: list[dict] = field(default_factory=list)  # checks of a best file that stopped moving
    pass_bugs: list[PassBug] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)  # passes dropped for a bug, for the rest of the run


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
        on_pass_bug: Callable[[PassBug], None] = lambda bug: None,
        pass_time_cap: float | None = None,
        caps: dict[int, int] | None = None,
        bugs: dict[int, int] | None = None,
        stall_window: int = 300,
        values=None,
        adaptive: bool = False,
        revisit: Sequence[Pass] = (),
        revisit_shrink: float = 0.2,
        coarse: Sequence[Pass] = (),
        coarse_shrink: float = 0.1,
    ):
        self.evaluator = evaluator
        self.language = language
        self.first, self.main, self.last = list(first), list(main), list(last)
        self.prefilter = prefilter
        self.on_accept, self.on_event, self.on_pass_bug = on_accept, on_event, on_pass_bug
        self.best: Source | None = None  # the part being reduced
        self.parts: list[bytes] = []
        self._part = 0
        self._join: Callable[[list[bytes]], bytes] = lambda parts: parts[0]
        self.status: Status | None = None
        # A pass run longer than pass_time_cap is cut short. Where a cut fell is recorded in
        # `caps` (pass-run index -> searches made), so a resumed run replays the same cut.
        self.pass_time_cap = pass_time_cap
        self.caps: dict[int, int] = dict(caps or {})
        # A pass that raises is dropped; `bugs` (pass-run index -> searches made) says where, so a
        # resumed run drops it at the same point even if the bug does not show again.
        self.bugs: dict[int, int] = dict(bugs or {})
        self._pass_runs = 0
        # Adaptive sweeps: after a full sweep of the main passes, only those that removed
        # something run again, until none does; then a full sweep again.
        self.adaptive = adaptive
        # When `stall_window` verdicts in a row fail the same way, the best is tested afresh; if it
        # is not interesting after all, the run goes back to the newest earlier best that is.
        self.stall_window = stall_window
        self._earlier: deque[list[bytes]] = deque(maxlen=8)
        # Constant values from the compiler (reducer/values.py), for the passes that fold: bound
        # to each best part as the `values` of its Source. None: they use the tree evaluator.
        self.values = values
        # Main passes that fold what the others expose (instantiate, unused): next to nothing to
        # do until a deletion makes them applicable, then a big step. In a sweep, once the part
        # has shrunk by `revisit_shrink` since they last ran, they run again at once, between two
        # searches of the pass that shrank it, rather than a sweep later (on a big file the first
        # sweep's tree-delete alone can take an hour).
        # Between two passes of a sweep they also run whenever the part changed since they last
        # ran: with nothing new to fold they propose nothing and cost no test.
        self.revisit = list(revisit)
        self.revisit_shrink = revisit_shrink
        # the part's text when they last ran; None: not in a sweep, or running them now
        self._revisited: bytes | None = None
        # The coarse head of the main list (through tree-delete): once the passes after it have
        # shrunk the part by `coarse_shrink` since it last ran, it runs again before the next
        # fine pass. On a big file a fine pass costs a test per line or token, and what the fine
        # passes expose (a helper no longer called, a template used once) is the coarse passes'.
        self.coarse = list(coarse)
        self.coarse_shrink = coarse_shrink
        self._coarse_mark = 0  # the part's size when the last coarse pass last ended
        # A pass's next run over a level starts at chunks twice the largest its last run there
        # took (single items if it took nothing): late in a run most passes take single items or
        # nothing, and the chunks of 2, 4, 8, ... items ddmin tries first fail one test each. A
        # pass's first run starts at all its items. Keyed (part, pass, level); set from verdicts
        # alone, so a replay makes the same searches.
        self._chunk_start: dict[tuple[int, str, int], int] = {}

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
        self._chunk_start.clear()
        self._start = list(parts)
        size = sum(map(len, self.parts))
        self.status = Status(original_size=size, size=size, parts=len(self.parts))
        self._over_parts(self.first)
        while removed := self._sweep(self.main):
            while self.adaptive and removed:
                removed = self._sweep(removed)
        self._over_parts(self.last)
        return self.result()

    def result(self) -> bytes:
        return self._join(list(self.parts))

    def _sweep(self, schedule: Sequence[Pass]) -> list[Pass]:
        """Run `schedule` over every part; the passes that removed something, in schedule order."""
        self.status.sweep += 1
        self.status.full_sweep = len(schedule) == len(self.main)
        before = {p.name: self._yield(p).accepted for p in schedule}
        self._over_parts(schedule, sweep=True)
        return [p for p in schedule if self._yield(p).accepted > before[p.name]]

    def _yield(self, p: Pass) -> PassYield:
        return self.status.per_pass.setdefault(p.name, PassYield())

    def _over_parts(self, schedule: Sequence[Pass], sweep: bool = False) -> None:
        for i in range(len(self.parts)):
            self._part = self.status.part = i
            self.best = self._source(self.parts[i])
            self._revisited = self.best.text if sweep else None
            self._coarse_mark = len(self.best.text)
            for p in schedule:
                self._run_pass(p)
                if sweep:
                    self._between(p)
        self._revisited = None

    def _between(self, p: Pass) -> None:
        """After `p` in a sweep: the coarse passes again if the part has shrunk enough since they
        last ran, else the revisit passes if it has changed at all. Sizes and texts decide, so a
        replay makes the same runs."""
        if p in self.revisit:
            self._revisited = self.best.text
        if p in self.coarse:
            if p is self.coarse[-1]:
                self._coarse_mark = len(self.best.text)
            return
        if self.coarse and len(self.best.text) <= (1 - self.coarse_shrink) * self._coarse_mark:
            again = self.coarse
        elif self.revisit and p not in self.revisit and self.best.text != self._revisited:
            again = self.revisit
        else:
            return
        for q in again:
            self._run_pass(q)
            self._between(q)

    def _revisit(self, p: Pass, stats: PassYield) -> None:
        """Run the revisit passes now if the part has shrunk enough since they last ran; then go
        on with `p` (its tests are charged to it, theirs to them)."""
        last = self._revisited  # (a revisit pass itself never triggers one: no revisit within a revisit)
        if last is None or p in self.revisit or len(self.best.text) > (1 - self.revisit_shrink) * len(last):
            return
        self._charge(stats)
        for q in self.revisit:
            self._run_pass(q)
        self._revisited = self.best.text
        self.status.current_pass = p.name
        self.evaluator.label = p.name
        self._charged = (time.monotonic(), *self._counts())
        self.on_event("pass", self.status)

    def _run_pass(self, p: Pass) -> None:
        if p.name in self.status.dropped or (p.needs_tree and self.best.tree is None):
            return
        self.status.current_pass = p.name
        stats = self._yield(p)
        self.on_event("pass", self.status)
        run = self._pass_runs
        self._pass_runs += 1
        start = time.monotonic()
        clock = _PassClock(run, self.caps.get(run), start + self.pass_time_cap if self.pass_time_cap else None,
                           self.bugs.get(run))
        self.evaluator.label = p.name  # its tests are counted, and journalled, as this pass's
        self._charged = (start, *self._counts())
        level = 0
        try:
            while (items := self._items(p, level, clock)) is not None:
                self._ddmin(p, level, items, stats, clock)
                level += 1
        except _Capped:
            self.caps[run] = clock.searches
            self.on_event("capped", self.status)
        except _Broken as broken:
            self._drop(p, run, clock.searches if broken.searches is None else broken.searches, broken)
        finally:
            self._charge(stats)
            self.evaluator.label = ""

    def _counts(self) -> tuple[int, int]:
        c = self.evaluator.counters
        return c.tests, c.cache_hits + c.shared_waits

    def _charge(self, stats: PassYield) -> None:
        """Add the tests, answers and time since the last charge to the running pass."""
        now, (tests, answered) = time.monotonic(), self._counts()
        since, tests0, answered0 = self._charged
        stats.tests += tests - tests0
        stats.answered += answered - answered0
        stats.seconds += now - since
        self._charged = (now, tests, answered)

    def _items(self, p: Pass, level: int, clock: "_PassClock") -> list[Item] | None:
        clock.replay_bug()
        try:
            items = p.items(self.best, level)
            return None if items is None else list(items)
        except Exception:  # the pass's bug, not the run's: it is reported and the pass dropped
            raise _Broken("items", level, self.best.text, [], traceback.format_exc()) from None

    def _apply(self, level: int, text: bytes, chunk: list[Item]) -> bytes:
        try:
            return apply(text, chain.from_iterable(chunk))
        except Exception:  # the edits as the pass made them, whatever they are
            edits = [e for item in chunk for e in (item if isinstance(item, tuple) else [item])]
            raise _Broken("apply", level, text, edits, traceback.format_exc()) from None

    def _drop(self, p: Pass, run: int, searches: int, broken: "_Broken") -> None:
        """Drop `p` for the rest of the run and report the bug."""
        searches = self.bugs.get(run, searches)
        bug = PassBug(len(self.status.pass_bugs) + 1, p.name, run, searches, self._part, self._languages[self._part],
                      broken.level, broken.stage, broken.text, broken.edits, broken.traceback,
                      replayed=run in self.bugs)
        self.bugs[run] = searches
        self.status.pass_bugs.append(bug)
        self.status.dropped.append(p.name)
        self.on_pass_bug(bug)

    def _ddmin(self, p: Pass, level: int, items: list[Item], stats: PassYield, clock: "_PassClock") -> None:
        """Chunks of consecutive items, biggest first; after an accepted chunk the items are
        enumerated afresh and the search goes on at the same position; the first size is capped
        by the pass's last run at this level (`_chunk_start`)."""
        key = (self._part, p.name, level)
        size = min(len(items), p.max_chunk or len(items), self._chunk_start.get(key, len(items)))
        largest = 0
        while size >= 1 and items:
            pos = 0
            while pos < len(items):
                clock.tick()
                try:
                    found = self.evaluator.first_interesting(self._candidates(p, level, items, pos, size, stats))
                except _Broken as broken:  # applying its items: replay stops before this search
                    broken.searches = clock.searches - 1
                    raise
                self._charge(stats)
                if found is None:
                    if self.evaluator.stalled(self.stall_window) and self._roll_back_if_broken():
                        items = self._items(p, level, clock) or []
                        continue
                    break
                index = found[0]
                start = pos + index * size  # the part's candidate again: the evaluator saw it joined
                self._accept(self._apply(level, self.best.text, items[start:start + size]), stats)
                largest = max(largest, size)
                pos += index * size
                self._revisit(p, stats)
                items = self._items(p, level, clock) or []
            size //= 2
        self._chunk_start[key] = max(1, 2 * largest)

    def _candidates(self, p: Pass, level: int, items: list[Item], pos: int, size: int,
                    stats: PassYield) -> Iterator[bytes | None]:
        """Candidates for chunks starting at pos, pos+size, ...; a chunk that is no smaller (nor
        progress by the pass's own measure) or adds parse errors is None: rejected without a test."""
        text = self.best.text
        for start in range(pos, len(items), size):
            candidate = self._apply(level, text, items[start:start + size])
            if not p.progresses(self.best, candidate):
                stats.not_smaller += 1
                yield None
            elif not self._syntax_ok(candidate):
                stats.prefiltered += 1
                yield None
            else:
                yield self._joined(candidate)

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

            def compose(probe: bytes, replaced: bytes = text) -> bytes:
                each = parts[:part] + [replaced] + parts[part + 1:]
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


class _Broken(Exception):
    """A pass raised (its traceback is kept), or a replay reached the point where one did."""

    def __init__(self, stage: str, level: int, text: bytes, edits: list, trace: str,
                 searches: int | None = None):
        super().__init__(stage)
        self.stage, self.level, self.text, self.edits, self.traceback = stage, level, text, edits, trace
        self.searches = searches


@dataclass
class _PassClock:
    """Counts one pass run's searches; stops it at a recorded count (a cap, or a bug), or else at
    its deadline."""

    run: int
    limit: int | None
    deadline: float | None
    broke_at: int | None = None
    searches: int = 0

    def replay_bug(self) -> None:
        """Where an earlier session's run of this pass broke, this one stops too."""
        if self.broke_at is not None and self.searches >= self.broke_at:
            raise _Broken("replay", -1, b"", [], "", self.searches)

    def tick(self) -> None:
        self.replay_bug()
        if self.limit is not None:
            if self.searches >= self.limit:
                raise _Capped
        elif self.deadline is not None and time.monotonic() > self.deadline:
            raise _Capped
        self.searches += 1
