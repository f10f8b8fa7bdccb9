"""Turns candidates into verdicts: each distinct candidate is tested once, speculatively in
parallel through the pool, and the first interesting one in proposal order wins, so the result
does not depend on -j. An oracle's stricter, costlier check (`confirm`) is asked for separately
(`confirm`), by the engine, for the candidates it keeps: a candidate whose confirmation failed is
never interesting again. What is known of verdicts (memory, journal, cache, claims, counters) is
the VerdictStore's; this is the policy: what to test, retry, re-check and confirm."""
from __future__ import annotations

from collections.abc import Iterable, Iterator

from interestingness.base import bundle
from interestingness.base.verdict import COMPILE_ERROR, UNKNOWN, Oracle, Verdict

from ..text.lexer import layout_key
from . import stopping
from .budget import Budget
from .cache import VerdictCache
from .pool import Pool
from .verdicts import VerdictStore

EMPTY = Verdict(False, "empty file (a test that accepts it is almost always broken; see --allow-empty)")


class Evaluator:
    def __init__(self, oracle: Oracle, jobs: int = 1, backend: str = "loky", cache: VerdictCache | None = None,
                 scheduler: str | None = None, journal=None, budget: Budget | None = None,
                 stale_after: float = 3600.0, recheck: bool = False, allow_empty: bool = False):
        self.oracle = oracle
        self.recheck = recheck  # test an interesting verdict once more before anyone may use it
        self.allow_empty = allow_empty  # an empty file is "interesting" mostly to a broken script
        self.journal = journal  # a workdir.Journal: verdicts of earlier sessions, and where new ones go
        self.budget = budget or Budget()
        self.jobs = max(1, jobs)
        # An oracle of file sets (a `tree`) gets bundles, whose members are keyed one by one.
        self._files = oracle.tree is not None
        layout = ((lambda c: bundle.map_texts(c, layout_key)) if self._files else layout_key) \
            if oracle.ignores_layout else None
        # `test` may be called from several threads (reduce ir's verdict server): the store is thread-safe
        self.store = VerdictStore(journal=journal, cache=cache, stale_after=stale_after, layout=layout,
                                  clock=self.budget.elapsed)
        self.counters = self.store.counters
        self._pool = Pool(self.jobs, backend, scheduler)

    @property
    def label(self) -> str:
        """Who asks for the tests now (the engine sets the running pass), journalled with each."""
        return self.store.label

    @label.setter
    def label(self, value: str) -> None:
        self.store.label = value

    def __enter__(self) -> Evaluator:
        self._pool.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self._pool.__exit__(*exc)

    @property
    def confirms(self) -> bool:
        """Whether the oracle has a confirmation for the candidates kept."""
        return self.oracle.confirm_steps > 0

    def test(self, content: bytes) -> Verdict:
        """The whole verdict of `content`: its test's, and if interesting, its confirmation's."""
        known = self._known(content)
        verdict = known if known is not None else self._run([content])[0]
        return self.confirm(content, verdict) if verdict.interesting else verdict

    def test_repeatedly(self, content: bytes, times: int, within_budget: bool = True) -> list[Verdict]:
        """Fresh verdicts (no memory, no cache) of `times` tests at once, to tell a stable oracle
        from a flaky one. They are journalled as checks, never as the candidate's verdict."""
        if within_budget:
            self.budget.check(self.counters.tests)
        verdicts = self._dispatch([content] * times)
        for v in verdicts:
            self.store.journal_check(content, v)
        return verdicts

    def stalled(self, window: int) -> bool:
        """Whether the last `window` verdicts all failed for one reason (see VerdictStore.stalled)."""
        return self.store.stalled(window)

    def retest(self, content: bytes) -> Verdict:
        """A fresh test of `content` whose verdict replaces whatever was remembered of it, here,
        in the journal and in the cache."""
        verdict = self._dispatch([content])[0]
        if not verdict.infra_failure:
            self.store.add(content, verdict)
        self.store.forget_streak()
        return verdict

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
                    if content in pending:  # an earlier candidate in this batch answers it
                        self.store.count(shared_waits=1)
                        continue
                    pending.add(content)
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
                if verdict.interesting:
                    return index, content, verdict
            if hit is not None:
                return hit

    def _known(self, content: bytes) -> Verdict | None:
        """A verdict without a test: of an empty file, or one the store holds; an interesting one
        whose confirmation this run has seen fail is that failure."""
        if not self.allow_empty and self._empty(content):
            return EMPTY
        known = self.store.lookup(content)
        if known is not None and known.interesting and self.confirms:
            refused = self.store.settled_confirmation(content)
            if refused is not None and not refused.interesting:
                return refused
        return known

    def _empty(self, content: bytes) -> bool:
        """Whitespace only; for a file set, every file."""
        if self._files:
            return all(not text.strip() for _, text in bundle.decode(content))
        return not content.strip()

    def _run(self, contents: list[bytes]) -> list[Verdict]:
        """Verdicts of distinct candidates, each tested here unless another process is testing it
        right now (a claim in the shared cache): then its verdict is awaited, and should that
        process die or fail, it is tested here after all."""
        verdicts: list[Verdict] = []
        for content, verdict in zip(contents, self._test_here(contents)):
            while verdict is None:
                verdict = self.store.wait(content)
                if verdict is None:
                    verdict = self._test_here([content])[0]
            verdicts.append(verdict)
        return verdicts

    def _test_here(self, contents: list[bytes]) -> list[Verdict | None]:
        """A test's verdict of each candidate, kept in the store; None for a candidate another
        process has claimed."""
        self.budget.check(self.counters.tests)
        verdicts: list[Verdict | None] = [None] * len(contents)
        with self.store.claimed(contents) as won:
            mine = [i for i, claimed in enumerate(won) if claimed]
            for i, v in zip(mine, self._tests([contents[i] for i in mine])):
                verdicts[i] = v
                if not v.infra_failure:
                    self.store.add(contents[i], v)
        return verdicts

    def _tests(self, contents: list[bytes]) -> list[Verdict]:
        """A test of each candidate. A failure of the machinery is retried once (and never kept);
        with `recheck`, an interesting verdict must hold on a second test, or it is called flaky."""
        verdicts = self._dispatch(contents)
        retry = [i for i, v in enumerate(verdicts) if v.infra_failure]
        self.store.count(infra_retries=len(retry))
        for i in retry:
            self.store.journal_check(contents[i], verdicts[i])
        for i, v in zip(retry, self._dispatch([contents[i] for i in retry])):
            verdicts[i] = v
        again = [i for i, v in enumerate(verdicts) if self.recheck and v.interesting]
        for i, v in zip(again, self._dispatch([contents[i] for i in again])):
            self.store.journal_check(contents[i], v)
            if not v.interesting:
                self.store.count(flaky=1)
                verdicts[i] = Verdict(False, f"flaky: interesting once, then not ({v.reason})",
                                      v.infra_failure, v.seconds)
        return verdicts

    def _dispatch(self, contents: list[bytes]) -> list[Verdict]:
        if not contents:
            return []
        self.store.count(tests=len(contents))
        verdicts = self._pool.map(self.oracle.test, [(c,) for c in contents])
        self.store.count(oracle_seconds=sum(v.seconds for v in verdicts),
                         compile_errors=sum(v.kind == COMPILE_ERROR for v in verdicts),
                         build_known=sum(v.kind != UNKNOWN for v in verdicts))
        self.store.count_phases(verdicts)
        return verdicts

    # Confirmation: the oracle's costlier check of a candidate the engine keeps, asked for by the
    # engine at its checkpoints (a batch of kept candidates is confirmed through its newest).

    def confirm(self, content: bytes, verdict: Verdict | None = None) -> Verdict:
        """The oracle's confirmation of `content`, whose test was interesting (`verdict`, if at
        hand: its details spare the oracle a build). Remembered, so asked of the oracle once; a
        failure of the machinery is retried once, then reported and not remembered."""
        if not self.confirms:
            return verdict or Verdict(True)
        known = self.store.confirmation(content)
        if known is not None:
            return known
        verdict = verdict if verdict is not None and verdict.details else self.store.lookup(content) or Verdict(True)
        for _attempt in range(2):
            steps = self._confirmations(content, verdict)
            broken = [v for v in steps if v.infra_failure]
            if not broken:
                break
            for v in broken:
                self.store.journal_check(content, v)
        else:
            return broken[0]
        failed = next((v for v in steps if not v.interesting), None)
        seconds = sum(v.seconds for v in steps)
        confirmed = Verdict(True, seconds=seconds) if failed is None else Verdict(False, failed.reason, seconds=seconds)
        self.store.add_confirmation(content, confirmed)
        return confirmed

    def _confirmations(self, content: bytes, verdict: Verdict) -> list[Verdict]:
        """The oracle's confirmation steps: in parallel through the pool, or else one by one up
        to the first that fails."""
        calls = [(content, verdict, step) for step in range(self.oracle.confirm_steps)]
        self.store.count(confirms=1)
        if self._pool.parallel:
            steps = self._pool.map(self.oracle.confirm, calls)
        else:
            steps = []
            for args in calls:
                steps.append(self.oracle.confirm(*args))
                if not steps[-1].interesting:
                    break
        seconds = sum(v.seconds for v in steps)
        self.store.count(oracle_seconds=seconds, confirm_seconds=seconds)
        self.store.count_phases(steps)
        return steps
