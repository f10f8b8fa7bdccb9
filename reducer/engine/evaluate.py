"""Turns candidates into verdicts: each distinct candidate is tested once, speculatively in
parallel through the pool, and the first interesting one in proposal order wins, so the result
does not depend on -j. An oracle's stricter, costlier check (`confirm`) is asked for separately
(`confirm`), by the engine, for the candidates it keeps: a candidate whose confirmation failed is
never interesting again. What is known of verdicts (memory, journal, cache, claims, counters) is
the VerdictStore's; this is the policy: what to test, retry, re-check and confirm."""
from __future__ import annotations

from collections import OrderedDict, deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

from interestingness.base import bundle
from interestingness.base.verdict import COMPILE_ERROR, UNKNOWN, Oracle, Verdict

from ..text.lexer import layout_key
from . import stopping
from .budget import Budget, BudgetExhausted
from .cache import VerdictCache
from .pool import Pool
from .verdicts import VerdictStore

Found = tuple[int, bytes, Verdict]  # a search's answer: the first interesting candidate's index, bytes, verdict

BETS_REMEMBERED = 64  # speculative candidates remembered for the count of those a search drew

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
        # Tests of later candidates that were still running when a search found its answer: they
        # run on, their slots counted, and a search that draws one of them takes it over.
        self._running_on: dict[bytes, _Test] = {}
        self._bets: OrderedDict[bytes, None] = OrderedDict()  # the newest speculative tests' candidates

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
        if exc[0] is None:
            self._finish(list(self._running_on.values()))  # their verdicts are journalled too
        else:
            self._abandon(list(self._running_on.values()))
        self._running_on.clear()
        self._pool.__exit__(*exc)

    @property
    def parallel(self) -> bool:
        """Whether tests run in workers, several at once (else each runs here when asked)."""
        return self._pool.parallel

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

    def first_interesting(self, candidates: Iterable[bytes | None], give_up: Callable[[], bool] | None = None,
                          successor: Callable[[int], bytes | None] | None = None) -> Found | None:
        """Index, content and verdict of the first interesting candidate in proposal order. Up to
        `jobs` tests run at once and the next starts as soon as one ends; verdicts are read in
        proposal order, so the answer does not depend on -j. Tests of later candidates still
        running when the answer comes run on, and are remembered when they end, as every verdict
        is (the confirmation of the answer need not wait for them). A None
        candidate is one the caller rejected without a test; it keeps its index. Once `give_up()`
        is true no more are drawn (the caller will throw the answer away: a search made beside a
        confirmation that refused). `successor(index)`: what the caller asks next should
        candidate `index` be the answer; once every candidate is drawn and a core is left idle,
        it is tested there on that bet (`_speculate`)."""
        stream: Iterator[tuple[int, bytes | None]] = iter(enumerate(candidates))
        ahead: deque[tuple[int, bytes | None]] = deque()  # drawn from `stream` while the tests ran, not yet taken
        queue: deque[_Test] = deque()  # drawn, verdict not yet read; in proposal order
        drawn: set[bytes] = set()
        bet_on: set[int] = set()  # the candidates whose successor has been asked for
        hit: Found | None = None  # remembered as interesting: nothing after it is drawn
        used: BudgetExhausted | None = None  # read what runs, then say so
        ended = False
        try:
            while True:
                stopping.check()
                ended = ended or give_up is not None and give_up()
                slots = max(1, self.jobs - len(self._running_on))  # earlier searches' tests hold the rest
                while not ended and hit is None and used is None and _room(queue, slots):
                    index, content = ahead.popleft() if ahead else next(stream, (-1, None))
                    if index < 0:
                        ended = True
                    elif content is None:
                        continue
                    elif (known := self._known(content)) is not None:
                        self._drawn(content)
                        hit = (index, content, known) if known.interesting else None
                    elif content in drawn:  # a candidate before it answers it
                        self.store.count(shared_waits=1)
                    else:
                        drawn.add(content)
                        self._drawn(content)
                        try:
                            queue.append(self._start(index, content))
                        except BudgetExhausted as e:
                            used = e
                if successor is not None and ended and hit is None and used is None and queue and \
                        queue[0].index not in bet_on and self._idle(queue):
                    bet_on.add(queue[0].index)
                    self._speculate(successor(queue[0].index), drawn)
                while queue and queue[0].verdict is not None:
                    test = queue.popleft()
                    if test.verdict is not None and test.verdict.interesting:
                        self._run_on(queue)
                        return test.index, test.content, test.verdict
                if queue:
                    if not ended and hit is None and used is None and not ahead:
                        self._draw_ahead(stream, ahead)
                    self._progress(queue)
                elif hit is not None or used is None and ended:
                    return hit
                else:
                    break  # the budget is used: what runs on finishes (a kept step's confirmation waits behind it)
        except BaseException:
            self._abandon([*queue, *self._running_on.values()])
            self._running_on.clear()
            raise
        assert used is not None
        raise used

    def _idle(self, queue: deque[_Test]) -> bool:
        """Whether a core is left idle: fewer tests run, this search's and those run on, than
        `jobs`."""
        return sum(t.verdict is None for t in queue) + len(self._running_on) < self.jobs

    def _speculate(self, content: bytes | None, drawn: set[bytes]) -> None:
        """Test `content`, the candidate the caller would ask about next should the one in
        flight be the answer, on a core that would idle: when a pass keeps most of what it
        proposes (a real library's TU: nearly every footprint, alias or inline step holds), its
        searches are one candidate long, and each waits for the one before. The test runs on as
        an earlier search's does (`_running_on`) and the search that draws the same bytes takes
        it over, so verdicts, and what is kept, are -j 1's; a lost bet costs an idle core's test."""
        if content is None or content in drawn or content in self._running_on or self._known(content) is not None:
            return
        try:
            test = self._start(-1, content)
        except BudgetExhausted:
            return
        if test.future is not None:
            self.store.count(speculated=1)
            self._bets[content] = None
            while len(self._bets) > BETS_REMEMBERED:
                self._bets.popitem(last=False)
            self._running_on[content] = test

    def prefetch(self, call: Callable[..., Any], *args: Any) -> Future | None:
        """`call(*args)` on a worker (None without workers): work a bet needs, such as the
        compiler's answers about a text that may be kept next."""
        return self._pool.submit(call, *args) if self._pool.parallel else None

    def _drawn(self, content: bytes) -> None:
        """A search draws `content`: a bet won when it was one."""
        if self._bets.pop(content, False) is None:
            self.store.count(speculated_used=1)

    def _draw_ahead(self, stream: Iterator[tuple[int, bytes | None]], ahead: deque[tuple[int, bytes | None]]) -> None:
        """Make the next candidate to test (and those rejected untested before it) while the
        tests run, its layout key too: the caller's edits, parse and join, and the lexing, would
        otherwise keep a slot idle after the next test ends."""
        while True:
            item = next(stream, (-1, None))
            ahead.append(item)
            if item[0] < 0 or item[1] is not None:
                break
        if item[1] is not None:
            self.store.prepare(item[1])

    def _start(self, index: int, content: bytes) -> _Test:
        """A test of `content` started here, or left to the process that claimed it in the
        shared cache (its verdict is awaited when it is read), or one an earlier search left
        running, taken over."""
        if (running := self._running_on.pop(content, None)) is not None:
            running.index = index
            return running
        self.budget.check(self.counters.tests)
        test = _Test(index, content, won=self.store.claim(content))
        if test.won:
            test.future = self._submit(content)
        return test

    def _progress(self, queue: deque[_Test]) -> None:
        """Wait until a test of `queue` ends and settle those that have; the first one's verdict
        comes from its claimant when another process is testing it."""
        running = {t.future: t for t in queue if t.verdict is None and t.future is not None}
        if not running:
            head = queue[0]
            head.verdict = self._run([head.content])[0]
            return
        earlier = {t.future: t for t in self._running_on.values() if t.future is not None}
        for future in self._pool.wait_any([*running, *earlier]):
            if future in running:
                self._settle(running[future])
            elif (test := earlier[future]).future is future:
                self._settle(test)
                if test.verdict is not None:
                    del self._running_on[test.content]

    def _run_on(self, tests: Iterable[_Test]) -> None:
        """Leave the tests of `tests` started here and still running to run on (`_running_on`)."""
        for test in tests:
            if test.verdict is None and test.future is not None:
                self._running_on[test.content] = test

    def _finish(self, tests: Iterable[_Test]) -> None:
        """Settle every test of `tests` started here."""
        for test in tests:
            while test.verdict is None and test.future is not None:
                test.future.result()
                self._settle(test)

    def _settle(self, test: _Test) -> None:
        """Read an ended test. A failure of the machinery is tested again once (and never kept);
        with `recheck`, an interesting verdict must hold on a second test, or it is called flaky.
        Then the verdict is kept, and the claim on it released."""
        assert test.future is not None
        verdict = self._counted(test.future.result())
        if verdict.infra_failure and not test.retried:
            self.store.journal_check(test.content, verdict)
            self.store.count(infra_retries=1)
            test.retried, test.future = True, self._submit(test.content)
            return
        if self.recheck and (verdict.interesting or test.first is not None):
            if test.first is None:
                test.first, test.future = verdict, self._submit(test.content)
                return
            self.store.journal_check(test.content, verdict)
            if not verdict.interesting:
                self.store.count(flaky=1)
                verdict = Verdict(False, f"flaky: interesting once, then not ({verdict.reason})",
                                  verdict.infra_failure, verdict.seconds)
            else:
                verdict = test.first
        if not verdict.infra_failure:
            self.store.add(test.content, verdict)
        self.store.release(test.content)
        test.verdict, test.future = verdict, None

    def _abandon(self, tests: Iterable[_Test]) -> None:
        """A stop, or an error, with `tests` unsettled: kill their builds, release their claims."""
        left = [t for t in tests if t.verdict is None and t.future is not None]
        if left:
            self._pool.kill()
        for test in left:
            self.store.release(test.content)

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
        tests: list[_Test] = []
        try:
            for i, content in enumerate(contents):
                tests.append(self._start(i, content))
            self._finish(tests)
        except BaseException:
            self._abandon(tests)
            raise
        return [t.verdict for t in tests]

    def _submit(self, content: bytes) -> Future:
        self.store.count(tests=1)
        return self._pool.submit(self.oracle.test, content)

    def _counted(self, verdict: Verdict) -> Verdict:
        self.store.count(oracle_seconds=verdict.seconds, compile_errors=int(verdict.kind == COMPILE_ERROR),
                         build_known=int(verdict.kind != UNKNOWN))
        self.store.count_phases([verdict])
        return verdict

    def _dispatch(self, contents: list[bytes]) -> list[Verdict]:
        """A test of each of `contents`, at once, nothing kept."""
        return [self._counted(f.result()) for f in [self._submit(c) for c in contents]]

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

    # Confirmation: the oracle's costlier check of a candidate the engine keeps, asked for by the
    # engine at its checkpoints (a batch of kept candidates is confirmed through its newest).

    def confirm(self, content: bytes, verdict: Verdict | None = None) -> Verdict:
        """The oracle's confirmation of `content`, whose test was interesting (`verdict`, if at
        hand: its details spare the oracle a build). Remembered, so asked of the oracle once; a
        failure of the machinery is retried once, then reported and not remembered."""
        return self.confirm_later(content, verdict).result()

    def confirm_later(self, content: bytes, verdict: Verdict | None = None) -> Confirmation:
        """`confirm`, started now: with workers, its steps run in the pool ahead of whatever is
        tested next, and `result()` waits for them; without, `result()` runs them."""
        if not self.confirms:
            return Confirmation(content, settled=verdict or Verdict(True))
        known = self.store.confirmation(content)
        if known is not None:
            return Confirmation(content, settled=known)
        verdict = verdict if verdict is not None and verdict.details else self.store.lookup(content) or Verdict(True)
        started = self._start_confirmation(content, verdict)
        return Confirmation(content, started, lambda: self._confirmed(content, verdict, started))

    def _confirmed(self, content: bytes, verdict: Verdict, started: list[Future] | None) -> Verdict:
        """The verdict of the confirmation steps `started` (None: run them here), remembered."""
        for _attempt in range(2):
            try:
                steps = self._confirmations(content, verdict, started)
            except Exception:  # noqa: BLE001 - its builds were killed with a search's (a pass that broke)
                if started is None:
                    raise
                steps = self._confirmations(content, verdict, self._start_confirmation(content, verdict))
            broken = [v for v in steps if v.infra_failure]
            if not broken:
                break
            for v in broken:
                self.store.journal_check(content, v)
            started = self._start_confirmation(content, verdict)
        else:
            return broken[0]
        failed = next((v for v in steps if not v.interesting), None)
        seconds = sum(v.seconds for v in steps)
        confirmed = Verdict(True, seconds=seconds) if failed is None else Verdict(False, failed.reason, seconds=seconds)
        self.store.add_confirmation(content, confirmed)
        return confirmed

    def _confirmations(self, content: bytes, verdict: Verdict, started: list[Future] | None) -> list[Verdict]:
        """The oracle's confirmation steps: in parallel through the pool (`started`: submitted
        already), or else one by one up to the first that fails."""
        self.store.count(confirms=1)
        if started is not None:
            steps = [f.result() for f in started]
        else:
            steps = []
            for step in range(self.oracle.confirm_steps):
                steps.append(self.oracle.confirm(content, verdict, step))
                if not steps[-1].interesting:
                    break
        seconds = sum(v.seconds for v in steps)
        self.store.count(oracle_seconds=seconds, confirm_seconds=seconds)
        self.store.count_phases(steps)
        return steps

    def _start_confirmation(self, content: bytes, verdict: Verdict) -> list[Future] | None:
        """The confirmation's steps submitted to the workers (None without workers)."""
        if not self._pool.parallel:
            return None
        return [self._pool.submit(self.oracle.confirm, content, verdict, step)
                for step in range(self.oracle.confirm_steps)]


class Confirmation:
    """A kept candidate's confirmation, started (its builds queued in the pool ahead of the
    tests that follow) or settled; `result()` is `Evaluator.confirm`'s verdict. The engine tests
    on beside it, as if it will pass (most do), and undoes that when it does not."""

    def __init__(self, content: bytes, started: list[Future] | None = None,
                 finish: Callable[[], Verdict] | None = None, settled: Verdict | None = None):
        self.content = content
        self._started, self._finish, self._settled = started, finish, settled

    def done(self) -> bool:
        """Whether `result()` would not wait (without workers: never before it is asked)."""
        return self._settled is not None or self._started is not None and all(f.done() for f in self._started)

    def result(self) -> Verdict:
        if self._settled is None:
            assert self._finish is not None
            self._settled = self._finish()
        return self._settled


@dataclass
class _Test:
    """One candidate's test: where it stands (its future, a retry or a recheck made) until its
    verdict is read."""

    index: int
    content: bytes
    won: bool  # tested here (else another process claimed it first)
    future: Future | None = None
    verdict: Verdict | None = None
    retried: bool = False
    first: Verdict | None = None  # with `recheck`: the interesting verdict the recheck must repeat


def _room(queue: deque[_Test], jobs: int) -> bool:
    """Whether another test may start: fewer than `jobs` run, and none read so far behind the
    first is interesting (the answer is that one or one before it)."""
    return sum(t.verdict is None for t in queue) < jobs and not any(t.verdict and t.verdict.interesting for t in queue)
