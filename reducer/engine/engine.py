"""The C-Reduce-style fixpoint: run the schedule's passes, each over ddmin chunks of its items,
keep every candidate the evaluator calls interesting, repeat until a sweep changes nothing.

The engine knows nothing about HIP, files or the oracle: candidates go to an Evaluator, which
pass runs when is the Schedule's to say, and the best-so-far, progress and a pass that raises go
to the `Hooks` (the pass is then dropped for the rest of the run, and the run goes on). A
candidate may be made of several parts (a file set: `reduce_parts`); the engine then reduces
one part at a time, each sweep running the schedule over every part in turn, and `join` makes
the candidate the evaluator sees from the parts (the one being reduced, the others at their
current best).

An oracle with a costlier confirmation (the spill oracle's guards) has it asked for at
checkpoints, for a batch of kept candidates at once (reducer/engine/checkpoints.py): only confirmed
candidates go to `on_accept`, and a refused one sends the run back to the last that passes.
With workers, the pass tests on beside a confirmation as if it will pass, and undoes that
search when it does not (`_search`): the path is the same at any -j.

Everything the engine decides follows from the verdicts alone, so a resumed run that replays
it with the journal answering takes the same path: where a pass was cut by its time cap or
dropped for a bug is recorded by pass-run index (`Replay`) and replayed from there.
"""
from __future__ import annotations

import time
import traceback
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, nullcontext
from copy import copy
from dataclasses import dataclass, field
from itertools import chain

from ..passes import Pass
from ..text.edits import Item, apply, carried
from ..text.source import Source
from .checkpoints import Checkpoints, Kept
from .evaluate import Confirmation, Evaluator, Found
from .schedule import Schedule

# A pass whose searches keep fewer than one candidate in this many asked makes no bets (`_bet`).
BET_RATE = 3


@dataclass
class PassYield:
    # its kept candidates and the bytes they removed, less those a refused confirmation sent
    # back (what the rest rule and the report count as paid)
    accepted: int = 0
    bytes_removed: int = 0
    tests: int = 0          # oracle tests of its candidates, speculative and re-checks included
    compile_errors: int = 0  # of them, whose verdict said the candidate does not compile
    build_known: int = 0     # of them, whose verdict said whether it compiles (not a script oracle's)
    answered: int = 0       # candidates answered by the persistent cache or another run's test
    not_smaller: int = 0    # rejected without a test: no smaller than the current file (nor the pass's progress)
    prefiltered: int = 0    # candidates rejected without a test: more parse errors than the current file
    # candidates put to the oracle and decided in order (tested, or answered from memory, the
    # cache or the journal): the same at any -j and on a replay, so the schedule's measure of cost
    asked: int = 0
    rested: int = 0         # sweeps it sat out for having paid too little (Schedule.rest_rate)
    seconds: float = 0.0    # wall seconds it ran
    oracle_seconds: float = 0.0  # the oracle's, of its tests and of confirming what it kept (summed over -j)


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
    confirmed_size: int = 0   # of the newest kept candidate confirmed (the one written)
    refused: int = 0          # kept candidates whose confirmation failed: the run went back
    started: float = field(default_factory=time.monotonic)
    per_pass: dict[str, PassYield] = field(default_factory=dict)
    stalls: list[dict] = field(default_factory=list)  # checks of a best file that stopped moving
    pass_bugs: list[PassBug] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)  # passes dropped for a bug, for the rest of the run


@dataclass(frozen=True)
class Hooks:
    """Where the engine reports: each new confirmed best (the joined candidate), progress
    ("pass", "accept", "capped", "stall", "rollback", "refused"), and a pass that raised."""

    on_accept: Callable[[bytes], None] = lambda text: None
    on_event: Callable[[str, Status], None] = lambda kind, status: None
    on_pass_bug: Callable[[PassBug], None] = lambda bug: None


@dataclass
class Replay:
    """Where pass runs stopped short, by pass-run index (the engine's count of them) -> searches
    made: cut by the time cap (`caps`) or dropped for a bug (`bugs`). A resumed run stops them at
    the same points, even when the cap would fall elsewhere or the bug does not show again; the
    engine adds the stops it meets. Without a recorded stop, a run is cut after `pass_time_cap`
    seconds."""

    caps: dict[int, int] = field(default_factory=dict)
    bugs: dict[int, int] = field(default_factory=dict)
    pass_time_cap: float | None = None

    def __post_init__(self):
        self.caps, self.bugs = dict(self.caps), dict(self.bugs)  # the caller's records stay as given

    def clock(self, run: int) -> _PassClock:
        """The clock of pass run `run`, starting now."""
        deadline = time.monotonic() + self.pass_time_cap if self.pass_time_cap else None
        return _PassClock(run, self.caps.get(run), deadline, self.bugs.get(run))


class Engine:
    """Reduces with the passes `schedule` says, testing candidates through `evaluator`, reporting
    to `hooks`, and stopping pass runs where `replay` recorded a stop."""

    def __init__(self, evaluator: Evaluator, language: str, schedule: Schedule, *, hooks: Hooks = Hooks(),
                 replay: Replay | None = None, values=None, prefilter: bool = True, stall_window: int = 300,
                 confirm_batch: int = 16):
        self.evaluator = evaluator
        self.confirm_batch = confirm_batch  # the most kept candidates confirmed at one checkpoint
        self.language = language
        self.schedule = schedule
        self.hooks = hooks
        self.replay = replay or Replay()
        self.prefilter = prefilter  # the syntax pre-filter: no more parse errors than the current file
        self.best: Source | None = None  # the part being reduced (`_best` while the passes run)
        self.parts: list[bytes] = []
        self._part = 0
        self._join: Callable[[list[bytes]], bytes] = lambda parts: parts[0]
        self.status = Status(original_size=0, size=0, parts=0)  # the standing; reduce_parts starts it afresh
        self._pass_runs = 0
        self._charges = _Charges(evaluator, lambda name: self.status.per_pass.setdefault(name, PassYield()))
        # When `stall_window` verdicts in a row fail the same way, the best is tested afresh; if it
        # is not interesting after all, the run goes back to the newest earlier best that is.
        self.stall_window = stall_window
        self._earlier: deque[list[bytes]] = deque(maxlen=8)
        # Constant values from the compiler (reducer/text/values.py), for the passes that fold: bound
        # to each best part as the `values` of its Source. None: they use the tree evaluator.
        self.values = values
        # A pass's next run over a level starts at chunks twice the largest its last run there
        # took (single items if it took nothing): late in a run most passes take single items or
        # nothing, and the chunks of 2, 4, 8, ... items ddmin tries first fail one test each. A
        # pass's first run starts at all its items. Keyed (part, pass, level); set from verdicts
        # alone, so a replay makes the same searches.
        self._chunk_start: dict[tuple[int, str, int], int] = {}
        # The confirmation of the newest kept step while the engine tests on beside it (with
        # workers: its builds leave a core idle otherwise); settled before anything but the
        # pass's next search or enumeration depends on it (`_search`, `_settle_pending`).
        self._pending: Confirmation | None = None

    @property
    def caps(self) -> dict[int, int]:
        """Where time caps fell, recorded ones included (pass-run index -> searches made)."""
        return self.replay.caps

    def reduce(self, text: bytes) -> bytes:
        """Reduce `text`, which the caller has already found interesting."""
        return self.reduce_parts([text], [self.language], lambda parts: parts[0])

    def reduce_parts(self, parts: Sequence[bytes], languages: Sequence[str],
                     join: Callable[[list[bytes]], bytes]) -> bytes:
        """Reduce a candidate made of `parts` (`join(parts)` is interesting and confirmed
        already): the first passes over each part, then sweeps of the main passes over each part
        in turn until a sweep changes no part, then the last passes over each part, each phase
        ending confirmed (a refusal means more sweeps). Returns the joined result."""
        self.parts, self._languages, self._join = list(parts), list(languages), join
        self._earlier.clear()
        self._chunk_start.clear()
        self._start = list(parts)
        self._checkpoints = self._new_checkpoints(Kept(list(parts), join(list(parts))))
        self._pending = None
        self._work = 0  # candidates decided since the last kept one (the checkpoints' W)
        size = sum(map(len, self.parts))
        self.status = Status(original_size=size, size=size, parts=len(self.parts), confirmed_size=size)
        self._over_parts(self.schedule.first)
        self._checkpoint()
        while True:
            sweep = self.schedule.main
            while sweep:
                sweep = self._sweep(sweep)
            if not self._checkpoint():
                break
        self._over_parts(self.schedule.last)
        while self._checkpoint():  # what the last passes kept that fails goes; they try again
            self._over_parts(self.schedule.last)
        return self.result()

    def result(self) -> bytes:
        """The newest confirmed candidate: what is written, and what a stopped run ends with."""
        return self._checkpoints.confirmed.content

    def settle(self) -> None:
        """A run whose budget is used: confirm what was kept since the last checkpoint, so that
        it ends with the newest kept candidate that passes, not with the last checkpoint (a
        batch of kept steps: 47 KB of composable_kernel at 30 minutes). A confirmation is not a
        test, so the budget does not stop it."""
        self._checkpoint()

    @property
    def _best(self) -> Source:
        """The part being reduced: set before any pass runs over it."""
        assert self.best is not None, "no part is being reduced"
        return self.best

    def _current(self) -> bytes:
        return self._join(list(self.parts))

    def _sweep(self, sweep: list[Pass]) -> list[Pass]:
        """Run the passes of `sweep` over every part; the next sweep, as the schedule says from
        which passes removed something and what each paid for it."""
        self.status.sweep += 1
        self.status.full_sweep = len(sweep) == len(self.schedule.main)
        for p in self.schedule.resting:
            self._yield(p).rested += 1
        before = {p.name: copy(self._yield(p)) for p in sweep}
        self._over_parts(sweep, sweeping=True)
        after = {p.name: self._yield(p) for p in sweep}
        paid = {name: (after[name].bytes_removed - y.bytes_removed, after[name].asked - y.asked)
                for name, y in before.items()}
        return self.schedule.next_sweep(sweep, [p for p in sweep if after[p.name].accepted > before[p.name].accepted],
                                        paid)

    def _yield(self, p: Pass) -> PassYield:
        return self.status.per_pass.setdefault(p.name, PassYield())

    def _over_parts(self, passes: list[Pass], sweeping: bool = False) -> None:
        for i in range(len(self.parts)):
            self._part = self.status.part = i
            self.best = self._source(self.parts[i])
            self.schedule.begin(self._best.text, sweeping)
            for n, p in enumerate(passes):
                if sweeping:
                    self._run_in_sweep(p, passes[n + 1:])
                else:
                    self._run_pass(p)

    def _run_in_sweep(self, p: Pass, left: list[Pass]) -> None:
        """Run `p`, then whatever the schedule runs after it before `left`, the passes of the
        sweep still to come."""
        self._run_pass(p)
        for q in self.schedule.between(p, self._best.text, left):
            self._run_in_sweep(q, left)

    def _revisit(self, p: Pass) -> None:
        """After `p` accepted a candidate: whatever the schedule runs before its next search
        (their tests are charged to them); then `p` goes on."""
        if self.schedule.within(p, self._best.text):
            self._settle_pending()  # the revisit passes run on what stands
        again = self.schedule.within(p, self._best.text)
        if not again:
            return
        self._run_revisits(again)
        self.schedule.revisited(self._best.text)
        self.status.current_pass = p.name
        self.hooks.on_event("pass", self.status)

    def _run_revisits(self, passes: list[Pass]) -> None:
        """Run the revisit passes `passes` within another pass, each followed by those the
        schedule runs again after it (`again`: a kernel made plain leaves its template unreached
        now, not once the part has shrunk by a fifth more)."""
        for q in passes:
            before = self._best.text
            self._run_pass(q)
            self._run_revisits(self.schedule.again(q, self._best.text != before))

    def _run_pass(self, p: Pass) -> None:
        if p.name in self.status.dropped or (p.needs_tree and self._best.tree is None):
            return
        self.status.current_pass = p.name
        stats = self._yield(p)
        with self._charges.to(p.name, stats):
            self.hooks.on_event("pass", self.status)
            run = self._pass_runs
            self._pass_runs += 1
            clock = self.replay.clock(run)
            level = 0
            try:
                while (items := self._items(p, level, clock)) is not None:
                    self._ddmin(p, level, items, stats, clock)
                    level += 1
            except _Capped:
                self.replay.caps[run] = clock.searches
                self.hooks.on_event("capped", self.status)
            except _Broken as broken:
                self._drop(p, run, clock.searches if broken.searches is None else broken.searches, broken)
            self._settle_pending()  # what comes next (the schedule's rules, another pass) sees what stands

    def _items(self, p: Pass, level: int, clock: _PassClock) -> list[Item] | None:
        clock.replay_bug()
        try:
            items = p.items(self._best, level)
            return None if items is None else list(items)
        except Exception:  # the pass's bug, not the run's: it is reported and the pass dropped
            raise _Broken("items", level, self._best.text, [], traceback.format_exc()) from None

    def _apply(self, level: int, text: bytes, chunk: list[Item]) -> bytes:
        try:
            return apply(text, chain.from_iterable(chunk))
        except Exception:  # the edits as the pass made them, whatever they are
            edits = [e for item in chunk for e in (item if isinstance(item, tuple) else [item])]
            raise _Broken("apply", level, text, edits, traceback.format_exc()) from None

    def _drop(self, p: Pass, run: int, searches: int, broken: _Broken) -> None:
        """Drop `p` for the rest of the run and report the bug."""
        bugs = self.replay.bugs
        searches = bugs.get(run, searches)
        bug = PassBug(len(self.status.pass_bugs) + 1, p.name, run, searches, self._part, self._languages[self._part],
                      broken.level, broken.stage, broken.text, broken.edits, broken.traceback,
                      replayed=run in bugs)
        bugs[run] = searches
        self.status.pass_bugs.append(bug)
        self.status.dropped.append(p.name)
        self.hooks.on_pass_bug(bug)

    def _ddmin(self, p: Pass, level: int, items: list[Item], stats: PassYield, clock: _PassClock) -> None:
        """Chunks of consecutive items, biggest first; after an accepted chunk the items are
        enumerated afresh (for a pass that `carries_items`, once the others, carried over the
        kept edits, are used up) and the search goes on at the same position; the first size is capped
        by the pass's last run at this level (`_chunk_start`), unless the pass's items go together
        (`whole_first`)."""
        key = (self._part, p.name, level)
        first = len(items) if p.whole_first else self._chunk_start.get(key, len(items))
        size = min(len(items), p.max_chunk or len(items), first)
        largest = 0
        while size >= 1 and items:
            pos = 0
            while True:
                if pos >= len(items):
                    if not self._settle_pending():
                        break
                    items = self._items(p, level, clock) or []  # refused: the text the run went back to
                    continue
                searched = self._search(p, level, items, pos, size, stats, clock)
                if searched is None:  # made beside a confirmation that refused: search the text it went back to
                    items = self._items(p, level, clock) or []
                    continue
                found, decided, asked = searched
                self._work += decided
                stats.asked += asked
                if found is None:
                    if self.evaluator.stalled(self.stall_window) and self._roll_back_if_broken():
                        items = self._items(p, level, clock) or []
                        continue
                    break
                index = found[0]
                start = pos + index * size  # the part's candidate again: the evaluator saw it joined
                before, chunk = self._best.text, items[start:start + size]
                kept = self._apply(level, before, chunk)
                self._accept(kept, p)
                largest = max(largest, size)
                pos += index * size
                self._revisit(p)
                rest = carried(items, chain.from_iterable(chunk), before, kept) \
                    if p.carries_items and self._best.text == kept else []  # the chunk's own: those it copied
                items = rest or self._items_beside_confirmation(p, level, clock)
            size //= 2
        self._chunk_start[key] = max(1, 2 * largest)

    def _search(self, p: Pass, level: int, items: list[Item], pos: int, size: int, stats: PassYield,
                clock: _PassClock) -> tuple[Found | None, int, int] | None:
        """One ddmin search: the first interesting chunk of `size` items from `pos` (its index,
        content and verdict, or None), the candidates decided and how many of them were put to
        the oracle. Made beside the confirmation of the step kept before it (`_pending`), it
        assumes that passes; when it does not, the run goes back, the search is undone as if it
        had never been made (its verdicts stay known) and None returned, so the path is -j 1's."""
        pending = self._pending
        marks = (clock.searches, stats.not_smaller, stats.prefiltered, self.status.prefiltered)
        give_up = None if pending is None else (lambda: pending.done() and not pending.result().interesting)
        try:
            clock.tick()
            candidates = _Counted(self._candidates(p, level, items, pos, size, stats))
            try:
                found = self.evaluator.first_interesting(candidates, give_up, self._bet(p, level, items, pos, size))
            except _Broken as broken:  # applying its items: replay stops before this search
                broken.searches = clock.searches - 1
                raise
        except _Broken:
            if self._settle_pending():
                self._undo_search(marks, stats, clock)
                return None
            raise
        self._charges.charge()
        if self._settle_pending():
            self._undo_search(marks, stats, clock)
            return None
        # decided in order: up to the interesting one (-j N may have drawn more), or all
        decided = candidates.count if found is None else found[0] + 1
        return found, decided, candidates.asked(decided)

    def _bet(self, p: Pass, level: int, items: list[Item], pos: int, size: int
             ) -> Callable[[int], bytes | None] | None:
        """What the evaluator may test on an idle core while the search's candidate `index` is
        tested (`Evaluator._speculate`): the candidate this search's successor makes first should
        that one be kept. Only with workers, and for a pass that keeps at least a third of what it
        asks about: where most candidates fail, the bet mostly loses."""
        stats = self._yield(p)
        if not self.evaluator.parallel or BET_RATE * stats.accepted < stats.asked:
            return None
        return lambda index: self._successor(p, level, items, pos, size, index)

    def _successor(self, p: Pass, level: int, items: list[Item], pos: int, size: int, index: int) -> bytes | None:
        """The first candidate -j 1 tests after keeping the chunk of candidate `index` when no
        other pass runs in between (`_revisit`): the pass's items on the text kept (carried over,
        or enumerated afresh), then the chunks from the same position, at half the size from the
        start once none is left there, as `_ddmin` goes on. None when the pass breaks (the search
        reports that itself) or needs the compiler's answer about that text (a footprint, a
        constant's value): that front-end run then starts ahead on a worker
        (`ClangValues.ahead`), and the enumeration after the kept step takes its output rather
        than run it with the workers idle."""
        text, start = self._best.text, pos + index * size
        edits = list(chain.from_iterable(items[start:start + size]))
        try:
            kept = apply(text, edits)
            after = self._source(kept)
            rest = carried(items, edits, text, kept) if p.carries_items else []
            with self.values.ahead(self.evaluator.prefetch) if self.values is not None else nullcontext():
                again = rest or list(p.items(after, level) or [])
            while size >= 1 and again:
                for at in range(start, len(again), size):
                    candidate = apply(kept, chain.from_iterable(again[at:at + size]))
                    if p.progresses(after, candidate) and (p.well_formed or self._no_new_errors(after, candidate)):
                        return self._joined(candidate)
                start, size = 0, size // 2
        except Exception:  # noqa: BLE001 - a bet not made; the search meets whatever broke, if it does
            return None
        return None

    def _no_new_errors(self, src: Source, candidate: bytes) -> bool:
        """Whether `candidate` has no more parse errors than `src` (always, without the
        pre-filter or a tree to count them in)."""
        return not self.prefilter or src.tree is None or \
            Source(candidate, src.language).error_count <= src.error_count

    def _undo_search(self, marks: tuple[int, int, int, int], stats: PassYield, clock: _PassClock) -> None:
        clock.searches, stats.not_smaller, stats.prefiltered, self.status.prefiltered = marks

    def _items_beside_confirmation(self, p: Pass, level: int, clock: _PassClock) -> list[Item]:
        """The pass's items on the step just kept, whose confirmation may still run: a pass that
        breaks on a text the run then leaves did not break."""
        try:
            return self._items(p, level, clock) or []
        except _Broken:
            if not self._settle_pending():
                raise
        return self._items(p, level, clock) or []

    def _settle_pending(self) -> bool:
        """Wait for the confirmation running beside the tests, if one is: True when it refused
        (the run went back: `_checkpoint`)."""
        return self._pending is not None and self._checkpoint()

    def _candidates(self, p: Pass, level: int, items: list[Item], pos: int, size: int,
                    stats: PassYield) -> Iterator[bytes | None]:
        """Candidates for chunks starting at pos, pos+size, ...; a chunk that is no smaller (nor
        progress by the pass's own measure) or adds parse errors (unless the pass changes no token) is
        None: rejected without a test."""
        text = self._best.text
        for start in range(pos, len(items), size):
            candidate = self._apply(level, text, items[start:start + size])
            if not p.progresses(self._best, candidate):
                stats.not_smaller += 1
                yield None
            elif not p.well_formed and not self._syntax_ok(candidate):
                stats.prefiltered += 1
                yield None
            else:
                yield self._joined(candidate)

    def _joined(self, candidate: bytes) -> bytes:
        parts = list(self.parts)
        parts[self._part] = candidate
        return self._join(parts)

    def _syntax_ok(self, candidate: bytes) -> bool:
        if self._no_new_errors(self._best, candidate):
            return True
        self.status.prefiltered += 1
        return False

    def _accept(self, content: bytes, p: Pass) -> None:
        stats, removed = self._yield(p), len(self._best.text) - len(content)
        stats.accepted += 1
        stats.bytes_removed += removed
        self._earlier.append(list(self.parts))
        self._set_parts(self.parts[:self._part] + [content] + self.parts[self._part + 1:])
        self.status.accepted += 1
        self.hooks.on_event("accept", self.status)
        self._checkpoints.keep(Kept(list(self.parts), self._current(), p.name, removed), self._work)
        self._work = 0
        if not self.evaluator.confirms:
            self._checkpoint()
        elif self._checkpoints.due():
            self._pending = self.evaluator.confirm_later(self._checkpoints.chain[-1].content)
            if not self.evaluator.parallel or self._pending.done():  # nothing to test beside it
                self._checkpoint()

    def _checkpoint(self) -> bool:
        """Confirm what was kept since the last checkpoint; the newest confirmed goes to
        `on_accept`. True when a refusal sent the run back (the passes see other text now)."""
        if not self._checkpoints.chain:
            return False
        pending, self._pending = self._pending, None
        if not self.evaluator.confirms:  # nothing to confirm: every kept candidate stands
            back = self._checkpoints.settle(lambda content: True)
        else:
            back = self._checkpoints.settle(lambda content: (
                pending.result() if pending is not None and content == pending.content
                else self.evaluator.confirm(content)).interesting)
        confirmed = self._checkpoints.confirmed
        self.status.confirmed_size = sum(map(len, confirmed.parts))
        self.hooks.on_accept(confirmed.content)
        if back is None:
            return False
        for dropped in self._checkpoints.dropped:  # a pass is paid for what it keeps, not for what goes back
            stats = self.status.per_pass[dropped.by]
            stats.accepted -= 1
            stats.bytes_removed -= dropped.removed
        self._set_parts(list(back.parts))
        self.status.refused += 1
        self.hooks.on_event("refused", self.status)
        return True

    def _new_checkpoints(self, start: Kept, earlier: Checkpoints | None = None) -> Checkpoints:
        """Checkpoints from `start`, keeping what `earlier` learnt of refusals and work, and what
        the oracle says a confirmation costs in tests (`confirm_cost`)."""
        checkpoints = Checkpoints(start, self.confirm_batch, self.evaluator.oracle.confirm_cost)
        if earlier is not None:
            checkpoints.decided, checkpoints.refused, checkpoints.work = earlier.decided, earlier.refused, earlier.work
        return checkpoints

    def _set_parts(self, parts: list[bytes]) -> None:
        self.parts = parts
        self.best = self._source(parts[self._part])
        self.status.size = sum(map(len, parts))

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
        verdict = self.evaluator.retest(self._current())
        stall = {"size": self.status.size, "best_interesting": verdict.interesting, "reason": verdict.reason[:300]}
        self.status.stalls.append(stall)
        if verdict.interesting:
            self.hooks.on_event("stall", self.status)
            return False
        while self._earlier:
            parts = self._earlier.pop()
            content = self._join(parts)
            if self.evaluator.retest(content).interesting and self.evaluator.confirm(content).interesting:
                break
        else:
            parts = self._start
        self._set_parts(list(parts))
        self._checkpoints = self._new_checkpoints(Kept(list(parts), self._current()), self._checkpoints)
        self.status.confirmed_size = self.status.size
        self.hooks.on_accept(self._current())
        stall["rolled_back_to"] = self.status.size
        self.hooks.on_event("rollback", self.status)
        return True


class _Counted:
    """An iterator of candidates that counts those drawn (None ones, rejected untested, too)."""

    def __init__(self, candidates: Iterator[bytes | None]):
        self._candidates, self.count = candidates, 0
        self._untested: list[int] = []  # indices of the None ones

    def __iter__(self) -> Iterator[bytes | None]:
        for candidate in self._candidates:
            if candidate is None:
                self._untested.append(self.count)
            self.count += 1
            yield candidate

    def asked(self, decided: int) -> int:
        """Of the first `decided` candidates, those put to the oracle."""
        return decided - sum(i < decided for i in self._untested)


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


class _Charges:
    """Charges the passes with what they spent, and labels the evaluator's tests (journalled
    and counted) with the running pass's name. A test is charged to the pass its journal line
    names, the one running when its verdict was read: one still running when its search ends
    (left to run on, or a bet on the step after) goes to the pass running when it ends (the
    store's `tally`). Wall seconds and answers go to the pass running; a pass run inside
    another (a revisit between two searches) interrupts it: the outer pass is charged up to
    there, and from its end on."""

    def __init__(self, evaluator: Evaluator, stats_of: Callable[[str], PassYield]):
        self.evaluator = evaluator
        self._stats_of = stats_of
        self._running: list[tuple[str, PassYield]] = []
        self._since = (0.0, 0)  # the last charge's time and answers
        self._tallied: dict[str, tuple[int, int, int, float]] = {}  # per label, what was charged of the tally

    @contextmanager
    def to(self, name: str, stats: PassYield) -> Iterator[None]:
        """Charge to the pass `name` (its yield `stats`) while it runs."""
        self._switch_to([*self._running, (name, stats)])
        try:
            yield
        finally:
            self._switch_to(self._running[:-1])

    def charge(self) -> None:
        """Add what was spent since the last charge: tests to the passes named, the rest to the
        running pass."""
        c, tally = self.evaluator.counters, self.evaluator.store.tally
        now, answered = time.monotonic(), c.cache_hits + c.shared_waits
        since, before = self._since
        if self._running:
            stats = self._running[-1][1]
            stats.answered += answered - before
            stats.seconds += now - since
        self._since = (now, answered)
        for label in sorted({*tally.tests, *tally.oracle_seconds} - {""}):  # "": outside passes
            counts = (tally.tests[label], tally.compile_errors[label], tally.build_known[label],
                      tally.oracle_seconds.get(label, 0.0))
            charged = self._tallied.get(label, (0, 0, 0, 0.0))
            if counts != charged:
                stats = self._stats_of(label)
                stats.tests += counts[0] - charged[0]
                stats.compile_errors += counts[1] - charged[1]
                stats.build_known += counts[2] - charged[2]
                stats.oracle_seconds += counts[3] - charged[3]
                self._tallied[label] = counts

    def _switch_to(self, running: list[tuple[str, PassYield]]) -> None:
        self.charge()
        self._running = running
        self.evaluator.label = running[-1][0] if running else ""
