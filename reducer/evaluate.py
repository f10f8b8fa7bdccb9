"""Turns candidates into verdicts: each distinct candidate is tested once, speculatively in
parallel through joblib, and the first interesting one in proposal order wins, so the result
does not depend on -j. An oracle's stricter check (`confirm`) runs on that one only."""
from __future__ import annotations

import dataclasses
import hashlib
import re
import threading
from dataclasses import dataclass
from typing import Iterable, Iterator

from joblib import Parallel, delayed, parallel_config

from interestingness import bundle
from interestingness.verdict import Oracle, Verdict

from . import stopping
from .budget import Budget
from .cache import VerdictCache
from .lexer import layout_key


@dataclass
class Counters:
    tests: int = 0           # oracle calls made
    memo_hits: int = 0       # answered from this run's memory
    layout_rejects: int = 0  # rejected as a respacing of a candidate found not interesting
    layout_retests: int = 0  # tested although a respacing was found interesting: what exact bytes cost
    cache_hits: int = 0      # answered from the persistent cache
    shared_waits: int = 0    # duplicates of a test in flight (here or in another run), answered by it
    replayed: int = 0        # answered from the journal of this run's earlier sessions
    flaky: int = 0           # interesting once, not on re-check: never committed
    confirms: int = 0        # oracle confirmations of a candidate about to be kept
    unconfirmed: int = 0     # of them, refused: the next interesting candidate was confirmed instead
    infra_retries: int = 0
    oracle_seconds: float = 0.0


EMPTY = Verdict(False, "empty file (a test that accepts it is almost always broken; see --allow-empty)")
# Line and column numbers of a diagnostic (`f.hip:19:10:`, a snippet's `19 |`): an error inherited
# from the best file moves with the text before it, and is still the same error.
_POSITION = re.compile(r":\d+:\d+:|^\s*\d+ \|", re.M)


def digest(content: bytes) -> str:
    return hashlib.sha256(content).hexdigest()


class Evaluator:
    def __init__(self, oracle: Oracle, jobs: int = 1, backend: str = "loky", cache: VerdictCache | None = None,
                 scheduler: str | None = None, journal=None, budget: Budget | None = None,
                 stale_after: float = 3600.0, recheck: bool = False, allow_empty: bool = False):
        self.oracle = oracle
        self.recheck = recheck  # test an interesting verdict once more before anyone may use it
        self.allow_empty = allow_empty  # an empty file is "interesting" mostly to a broken script
        self.cache = cache
        self.stale_after = stale_after  # a claim older than this is taken over (owner hung or on another host)
        self.journal = journal  # a workdir.Journal: verdicts of earlier sessions, and where new ones go
        self.budget = budget or Budget()
        self.jobs = max(1, jobs)
        self.backend = backend
        self.scheduler = scheduler
        self._client = None
        # Memory, journal and cache hold verdicts of exact bytes. When the oracle ignores layout,
        # a rejection is also remembered under the candidate's layout key (reducer/lexer.py), so
        # a respacing of a rejected candidate is rejected without a test. Nothing is accepted
        # through that key: a candidate becomes the best only on a verdict of its own bytes.
        # An oracle of file sets (a `tree`) gets bundles, whose members are keyed one by one.
        self._files = getattr(oracle, "tree", None) is not None
        self._layout = ((lambda c: bundle.map_texts(c, layout_key)) if self._files else layout_key) \
            if oracle.ignores_layout else None
        self.counters = Counters()
        # Who asks for the tests now (the engine sets the running pass): journalled with each
        # test, so a resumed run knows which pass its earlier sessions' tests were for.
        self.label = ""
        self._memo: dict[str, Verdict] = {}
        # An oracle with a stricter, costlier check (`confirm`) has it run only on the candidate
        # about to be kept: a test's interesting verdict stays provisional, in this run's memory
        # only, until then. Memory, journal and cache hold settled verdicts alone.
        self._confirm = getattr(oracle, "confirm", None)
        self._provisional: dict[str, Verdict] = {}
        self._rejected_layouts: dict[str, Verdict] = {}
        self._accepted_layouts: set[str] = set()  # only to count layout_retests
        self._streak: tuple[str, int] = ("", 0)  # the last verdicts' shared failure reason, and how many
        # `test` may be called from several threads (reduce ir's verdict server): memory and
        # counters change under this lock, oracle runs happen outside it
        self._lock = threading.RLock()
        self._parallel: Parallel | None = None

    def __enter__(self) -> "Evaluator":
        if self.backend == "dask":
            from dask.distributed import Client  # optional dependency: only for cluster runs

            self._client = Client(self.scheduler) if self.scheduler else Client(processes=True)
        if self.jobs > 1 or self._client is not None:
            with parallel_config(backend=self.backend):  # the way joblib registers its dask backend
                self._parallel = Parallel(n_jobs=self.jobs)
            self._parallel.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        if self._parallel is not None:
            self._parallel.__exit__(*exc)
            self._parallel = None
        if self._client is not None:
            self._client.close()
            self._client = None

    def test(self, content: bytes) -> Verdict:
        known = self._known(content)
        return known if known is not None else self._settle(content, self._run([content])[0])

    def test_repeatedly(self, content: bytes, times: int, within_budget: bool = True) -> list[Verdict]:
        """Fresh verdicts (no memory, no cache) of `times` tests at once, to tell a stable oracle
        from a flaky one. They are journalled as checks, never as the candidate's verdict."""
        if within_budget:
            self.budget.check(self.counters.tests)
        verdicts = self._dispatch([content] * times)
        for v in verdicts:
            self._journal_check(content, v)
        return verdicts

    def _journal_check(self, content: bytes, verdict: Verdict) -> None:
        """A test that is not the candidate's verdict (a re-check, a failed attempt) still counts."""
        if self.journal is not None:
            self.journal.append(digest(content), verdict, self.budget.elapsed(), check=True, by=self.label)

    def _known(self, content: bytes) -> Verdict | None:
        """A verdict of these bytes from this run's memory or else the persistent cache (then
        remembered); failing that, the rejection of a candidate with the same layout key."""
        if not self.allow_empty and self._empty(content):
            return EMPTY
        with self._lock:
            known = self._recall(digest(content), content)
            if known is None and self._layout is not None:
                layout = digest(self._layout(content))
                known = self._rejected_layouts.get(layout)
                if known is not None:
                    self.counters.layout_rejects += 1
                elif layout in self._accepted_layouts:
                    self.counters.layout_retests += 1
            return known

    def _empty(self, content: bytes) -> bool:
        """Whitespace only; for a file set, every file."""
        if self._files:
            return all(not text.strip() for _, text in bundle.decode(content))
        return not content.strip()

    def _recall(self, key: str, content: bytes) -> Verdict | None:
        known = self._memo.get(key)
        if known is not None:
            self.counters.memo_hits += 1
            return known
        if self.journal is not None and key in self.journal.known:
            self.counters.replayed += 1
            known = self.journal.known[key]
        elif self.cache is not None and (known := self.cache.get(content)) is not None:
            self.counters.cache_hits += 1
        else:
            return None
        self._learn(key, content, known)
        return known

    def _learn(self, key: str, content: bytes, verdict: Verdict) -> None:
        self._memo[key] = verdict
        if self._layout is not None:
            layout = digest(self._layout(content))
            if verdict.interesting:
                self._accepted_layouts.add(layout)
            else:
                self._rejected_layouts[layout] = verdict
        why = "" if verdict.interesting else _POSITION.sub(":", verdict.reason[:300])
        self._streak = (why, self._streak[1] + 1 if why and why == self._streak[0] else 1)

    def stalled(self, window: int) -> bool:
        """Whether the last `window` verdicts all failed for one reason (the same error at the same
        place): the sign of a best file that is itself broken."""
        return bool(self._streak[0]) and self._streak[1] >= window

    def retest(self, content: bytes) -> Verdict:
        """A fresh verdict of `content` (confirmed, if interesting) that replaces whatever was
        remembered of it, here, in the journal and in the cache."""
        verdict = self._dispatch([content])[0]
        if not verdict.infra_failure:
            self._keep(content, verdict)
            verdict = self._settle(content, verdict)
        self._streak = ("", 0)
        return verdict

    def _settle(self, content: bytes, verdict: Verdict) -> Verdict:
        """The verdict `content` is kept on: a provisional one (interesting, not yet confirmed)
        goes through the oracle's confirmation, which a failure of the machinery may not answer
        (it is retried once, then reported and nothing is remembered)."""
        key = digest(content)
        if key not in self._provisional:
            return verdict
        for attempt in range(2):
            steps = self._confirmations(content, verdict)
            broken = [v for v in steps if v.infra_failure]
            if not broken:
                break
            for v in broken:
                self._journal_check(content, v)
        else:
            return broken[0]
        failed = next((v for v in steps if not v.interesting), None)
        seconds = verdict.seconds + sum(v.seconds for v in steps)
        confirmed = dataclasses.replace(verdict, seconds=seconds) if failed is None else \
            Verdict(False, failed.reason, seconds=seconds, details=verdict.details)
        with self._lock:
            del self._provisional[key]
            self.counters.unconfirmed += not confirmed.interesting
        if self.cache is not None:
            self.cache.put(content, confirmed)
        self._remember(content, confirmed)
        return confirmed

    def _confirmations(self, content: bytes, verdict: Verdict) -> list[Verdict]:
        """The oracle's confirmation steps: in parallel through the pool, or else one by one up
        to the first that fails."""
        calls = [(content, verdict, step) for step in range(self._steps())]
        with self._lock:
            self.counters.confirms += 1
        if self._parallel is None:
            steps = []
            for args in calls:
                steps.append(self._confirm(*args))
                if not steps[-1].interesting:
                    break
        else:
            steps = self._call(self._confirm, calls)
        with self._lock:
            self.counters.oracle_seconds += sum(v.seconds for v in steps)
        return steps

    def _steps(self) -> int:
        return getattr(self.oracle, "confirm_steps", 0) if self._confirm is not None else 0

    def first_interesting(self, candidates: Iterable[bytes | None]) -> tuple[int, bytes, Verdict] | None:
        """Index, content and verdict of the first interesting candidate, testing `jobs` at a
        time. A None candidate is one the caller rejected without a test; it keeps its index."""
        stream: Iterator[tuple[int, bytes | None]] = iter(enumerate(candidates))
        while True:
            stopping.check()
            batch, hit, pending = [], None, set()
            room = self.budget.tests_left(self.counters.tests)
            size = self.jobs if room is None else max(1, min(self.jobs, room))
            for index, content in stream:
                if content is None:
                    continue
                known = self._known(content)
                if known is None:
                    key = digest(content)
                    if key in pending:  # an earlier candidate in this batch answers it
                        self.counters.shared_waits += 1
                        continue
                    pending.add(key)
                    batch.append((index, content))
                    if len(batch) == size:
                        break
                    continue
                if known.interesting:
                    hit = (index, content, known)
                    break
            if not batch and hit is None:
                return None
            verdicts = self._run([c for _, c in batch])
            for (index, content), verdict in zip(batch, verdicts):
                if verdict.interesting and (verdict := self._settle(content, verdict)).interesting:
                    return index, content, verdict
            if hit is not None:
                return hit

    def _run(self, contents: list[bytes]) -> list[Verdict]:
        """Test distinct candidates; a failure of the machinery is retried once and never memoised.
        A candidate another process is testing right now (a claim in the shared cache) is not
        tested again: its verdict is awaited."""
        self.budget.check(self.counters.tests)
        verdicts: list[Verdict | None] = [self._provisional.get(digest(c)) for c in contents]
        mine = [i for i, c in enumerate(contents)
                if verdicts[i] is None and (self.cache is None or self.cache.claim(c, self.stale_after))]
        try:
            for i, v in zip(mine, self._dispatch([contents[i] for i in mine])):
                verdicts[i] = v
            retry = [i for i in mine if verdicts[i].infra_failure]
            if retry:
                with self._lock:
                    self.counters.infra_retries += len(retry)
                for i in retry:
                    self._journal_check(contents[i], verdicts[i])
                for i, v in zip(retry, self._dispatch([contents[i] for i in retry])):
                    verdicts[i] = v
            again = [i for i in mine if self.recheck and verdicts[i].interesting]
            for i, v in zip(again, self._dispatch([contents[i] for i in again])):
                self._journal_check(contents[i], v)
                if not v.interesting:
                    self.counters.flaky += 1
                    verdicts[i] = Verdict(False, f"flaky: interesting once, then not ({v.reason})",
                                          v.infra_failure, v.seconds)
            for i in mine:
                if not verdicts[i].infra_failure:
                    self._keep(contents[i], verdicts[i])
        finally:
            if self.cache is not None:
                for i in mine:
                    self.cache.release(contents[i])
        for i in sorted(set(range(len(contents))) - set(mine)):
            if verdicts[i] is not None:  # provisional
                continue
            verdict = self.cache.wait(contents[i], self.stale_after)
            if verdict is None:  # its producer died or failed: test it here
                verdicts[i] = self._run([contents[i]])[0]
            else:
                self.counters.shared_waits += 1
                verdicts[i] = verdict
                self._remember(contents[i], verdict)
        return verdicts

    def _keep(self, content: bytes, verdict: Verdict) -> None:
        """Remember a test's verdict; an interesting one that awaits confirmation stays provisional
        (journalled as a check: the test was made, the verdict is not settled)."""
        if verdict.interesting and self._steps():
            with self._lock:
                self._provisional[digest(content)] = verdict
            self._journal_check(content, verdict)
            return
        if self.cache is not None:
            self.cache.put(content, verdict)
        self._remember(content, verdict)

    def _remember(self, content: bytes, verdict: Verdict) -> None:
        key = digest(content)
        with self._lock:
            self._learn(key, content, verdict)
        if self.journal is not None:
            self.journal.append(key, verdict, self.budget.elapsed(), by=self.label)

    def _dispatch(self, contents: list[bytes]) -> list[Verdict]:
        if not contents:
            return []
        with self._lock:
            self.counters.tests += len(contents)
        verdicts = self._call(self.oracle.test, [(c,) for c in contents])
        with self._lock:
            self.counters.oracle_seconds += sum(v.seconds for v in verdicts)
        return verdicts

    def _call(self, method, calls: list[tuple]) -> list[Verdict]:
        """An oracle method on each argument tuple: in this process when there is no pool, or a
        single call without a cluster to send it to; else through the pool."""
        if self._parallel is None or (len(calls) == 1 and self._client is None):
            return [method(*args) for args in calls]
        return list(self._parallel(delayed(method)(*args) for args in calls))

