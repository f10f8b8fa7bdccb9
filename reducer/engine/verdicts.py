"""What this run knows of candidates' verdicts, behind one lock: the memory of this run, the
journal of its sessions, the persistent cache shared with other runs and its claims on tests in
flight, rejections by layout key, verdicts awaiting confirmation, the failure streak, and the
counters. The evaluator decides what to test and when a verdict is settled; the store answers,
records and counts, so that `reduce ir`'s server threads and the evaluator's pool always see one
consistent state."""
from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from interestingness.base.verdict import Verdict

from .cache import RECORD_CONFIRMATION, VerdictCache
from .journal import Journal, Tally, record


@dataclass
class Counters:
    tests: int = 0           # oracle calls made
    compile_errors: int = 0  # of them, whose verdict says the candidate does not compile
    build_known: int = 0     # of them, whose verdict says whether it compiles (a script's does not)
    memo_hits: int = 0       # answered from this run's memory
    layout_rejects: int = 0  # rejected as a respacing of a candidate found not interesting
    layout_retests: int = 0  # tested although a respacing was found interesting: what exact bytes cost
    cache_hits: int = 0      # answered from the persistent cache
    shared_waits: int = 0    # duplicates of a test in flight (here or in another run), answered by it
    replayed: int = 0        # answered from the journal of this run's earlier sessions
    flaky: int = 0           # interesting once, not on re-check: never committed
    confirms: int = 0        # oracle confirmations of a candidate kept (checkpoints and their bisections)
    unconfirmed: int = 0     # of them, refused: the run went back to the last confirmed candidate
    infra_retries: int = 0
    speculated: int = 0      # of the tests, started on a bet: the next candidate should the one in flight be kept
    speculated_used: int = 0  # of those, drawn by a later search (the bet won)
    oracle_seconds: float = 0.0
    confirm_seconds: float = 0.0  # of oracle_seconds, the confirmations'
    # the oracle's seconds per phase of its work, as its verdicts give them (details["phases"]:
    # the spill oracle's "lto" and "nolto" builds, "ub_guard" and "init_guard" confirmations)
    phase_seconds: dict[str, float] = field(default_factory=dict)


# Line and column numbers of a diagnostic (`f.hip:19:10:`, a snippet's `19 |`): an error inherited
# from the best file moves with the text before it, and is still the same error.
_POSITION = re.compile(r":\d+:\d+:|^\s*\d+ \|", re.M)

# How many contents' layout keys the store keeps: a candidate's lookup before its test and its
# verdict after it need the same key, and only the tests in flight (about -j) lie between the two.
LAYOUT_MEMO = 256


def digest(content: bytes) -> str:
    return hashlib.sha256(content).hexdigest()


class VerdictStore:
    """Memory, journal and cache hold the verdicts of tests of exact bytes, and, apart, the
    oracle's confirmations of candidates kept. With a `layout` key (reducer/text/lexer.py; given when
    the oracle ignores layout), a rejection is also remembered under the candidate's layout key,
    so a respacing of a rejected candidate is rejected without a test; nothing is accepted
    through that key."""

    def __init__(self, *, journal: Journal | None, cache: VerdictCache | None, stale_after: float,
                 layout: Callable[[bytes], bytes] | None, clock: Callable[[], float]):
        self.journal = journal
        self.counters = Counters()
        # Who asks for the tests now (the engine sets the running pass): journalled with each
        # test, so a resumed run knows which pass its earlier sessions' tests were for.
        self.label = ""
        self.tally = Tally()  # this session's tests and oracle seconds per label, as journalled
        self._cache = cache
        self._stale_after = stale_after  # a claim older than this is taken over (owner hung or on another host)
        self._layout = layout
        self._clock = clock  # active seconds of the run, journalled with each test
        self._memo: dict[str, Verdict] = {}
        self._confirmed: dict[str, Verdict] = {}
        self._rejected_layouts: dict[str, Verdict] = {}
        self._accepted_layouts: set[str] = set()  # only to count layout_retests
        self._layouts: dict[str, str] = {}  # content digest -> layout key digest, the LAYOUT_MEMO newest
        self._streak: tuple[str, int] = ("", 0)  # the last verdicts' shared failure reason, and how many
        # oracle runs and waits for other processes happen outside it
        self._lock = threading.RLock()

    def lookup(self, content: bytes) -> Verdict | None:
        """A settled verdict of these bytes from this run's memory, else its journal or the
        persistent cache (then remembered); failing that, the rejection of a candidate with the
        same layout key."""
        key = digest(content)
        with self._lock:
            known = self._recall(key, content)
            if known is None and self._layout is not None:
                layout = self._layout_of(key, content)
                known = self._rejected_layouts.get(layout)
                if known is not None:
                    self.counters.layout_rejects += 1
                elif layout in self._accepted_layouts:
                    self.counters.layout_retests += 1
            return known

    def prepare(self, content: bytes) -> None:
        """Make `content`'s layout key now, for its `lookup` to come (nothing is counted)."""
        key = digest(content)
        with self._lock:
            if self._layout is not None and key not in self._memo:
                self._layout_of(key, content)

    def _recall(self, key: str, content: bytes) -> Verdict | None:
        known = self._memo.get(key)
        if known is not None:
            self.counters.memo_hits += 1
            return known
        if self.journal is not None and key in self.journal.known:
            self.counters.replayed += 1
            known = self.journal.known[key]
        elif self._cache is not None and (known := self._cache.get(content)) is not None:
            self.counters.cache_hits += 1
        else:
            return None
        self._learn(key, content, known)
        return known

    def add(self, content: bytes, verdict: Verdict) -> None:
        """A test's verdict: remembered, cached and journalled."""
        with self._lock:
            if self._cache is not None:
                self._cache.put(content, verdict)
            self._remember(content, verdict)

    def confirmation(self, content: bytes) -> Verdict | None:
        """The oracle's confirmation of `content`, from this run's memory, journal or the cache."""
        key = digest(content)
        with self._lock:
            known = self._confirmed.get(key)
            if known is None and self.journal is not None:
                known = self.journal.confirmed.get(key)
            if known is None and self._cache is not None:
                record = self._cache.get_record(content, RECORD_CONFIRMATION)
                known = None if record is None else Verdict(record["interesting"], record["reason"],
                                                            seconds=record["seconds"])
            if known is not None:
                self._confirmed[key] = known
            return known

    def settled_confirmation(self, content: bytes) -> Verdict | None:
        """The confirmation of `content` once this run has asked for it (of the oracle, or
        answered by the journal or the cache then). The journal and the cache know refusals the
        run has not met yet: a replay that went by them would skip a candidate the replayed run
        kept (and was refused at its checkpoint), and take another path."""
        with self._lock:
            return self._confirmed.get(digest(content))

    def add_confirmation(self, content: bytes, verdict: Verdict) -> None:
        """The oracle's confirmation of `content` (never a failure of the machinery): remembered,
        cached and journalled."""
        key = digest(content)
        with self._lock:
            self._confirmed[key] = verdict
            self.counters.unconfirmed += not verdict.interesting
            if self._cache is not None:
                self._cache.put_record(content, {"interesting": verdict.interesting, "reason": verdict.reason,
                                                 "seconds": verdict.seconds}, RECORD_CONFIRMATION)
            self._record(key, verdict, confirm=True)

    def journal_check(self, content: bytes, verdict: Verdict) -> None:
        """A test that is not the candidate's verdict (a re-check, a failed attempt) still counts."""
        with self._lock:
            self._record(digest(content), verdict, check=True)

    def claim(self, content: bytes) -> bool:
        """A claim on testing `content` in the shared cache: True when this process is to test
        it (then `release` it once its verdict is kept or the test is given up), False when
        another live process is testing it now (`wait` for its verdict)."""
        if self._cache is None:
            return True
        with self._lock:
            return self._cache.claim(content, self._stale_after)

    def release(self, content: bytes) -> None:
        if self._cache is not None:
            with self._lock:
                self._cache.release(content)

    def wait(self, content: bytes) -> Verdict | None:
        """The verdict of the process that claimed `content`, remembered; None once its claim is
        gone or stale without one (it died, or met a failure of the machinery)."""
        assert self._cache is not None, "only a claim in the shared cache is waited for"
        verdict = self._cache.wait(content, self._stale_after)  # outside the lock: it may take a test's time
        if verdict is not None:
            with self._lock:
                self.counters.shared_waits += 1
                self._remember(content, verdict, shared=True)
        return verdict

    def count(self, **deltas: float) -> None:
        """Add to counters that only the evaluator knows about (tests made, retries, confirmations)."""
        with self._lock:
            for name, delta in deltas.items():
                setattr(self.counters, name, getattr(self.counters, name) + delta)

    def count_phases(self, verdicts: Iterable[Verdict]) -> None:
        """Add the seconds per phase that `verdicts` report (details["phases"]) to the counters."""
        with self._lock:
            for v in verdicts:
                for name, seconds in (v.details.get("phases") or {}).items():
                    self.counters.phase_seconds[name] = self.counters.phase_seconds.get(name, 0.0) + seconds

    def stalled(self, window: int) -> bool:
        """Whether the last `window` verdicts all failed for one reason (the same error at the same
        place): the sign of a best file that is itself broken."""
        with self._lock:
            return bool(self._streak[0]) and self._streak[1] >= window

    def forget_streak(self) -> None:
        with self._lock:
            self._streak = ("", 0)

    def _remember(self, content: bytes, verdict: Verdict, shared: bool = False) -> None:
        key = digest(content)
        self._learn(key, content, verdict)
        self._record(key, verdict, shared=shared)

    def _record(self, key: str, verdict: Verdict, **kind: bool) -> None:
        """Journal a verdict under the label of now, and count it there: a test is charged to
        the pass its journal line names, whichever pass started it."""
        line = record(key, verdict, self._clock(), by=self.label, **kind)
        self.tally.add(line)
        if self.journal is not None:
            self.journal.append(line)

    def _learn(self, key: str, content: bytes, verdict: Verdict) -> None:
        self._memo[key] = verdict
        if self._layout is not None:
            layout = self._layout_of(key, content)
            if verdict.interesting:
                self._accepted_layouts.add(layout)
            else:
                self._rejected_layouts[layout] = verdict
        why = "" if verdict.interesting else _POSITION.sub(":", verdict.reason[:300])
        self._streak = (why, self._streak[1] + 1 if why and why == self._streak[0] else 1)

    def _layout_of(self, key: str, content: bytes) -> str:
        """The digest of `content`'s layout key, made once per content (lexing a file takes
        milliseconds of the main process, during which a worker may sit idle)."""
        assert self._layout is not None
        layout = self._layouts.pop(key, None)
        if layout is None:
            layout = digest(self._layout(content))
        self._layouts[key] = layout  # newest last
        if len(self._layouts) > LAYOUT_MEMO:
            del self._layouts[next(iter(self._layouts))]
        return layout
