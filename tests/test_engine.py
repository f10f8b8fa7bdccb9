"""Engine and evaluator behaviour with small in-process oracles (the CLI tests use real ones)."""
import re
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from itertools import groupby

from interestingness.base.verdict import BUILT, COMPILE_ERROR, NoConfirmation, Verdict
from reducer import passes
from reducer.engine.budget import Budget, BudgetExhausted
from reducer.engine.checkpoints import batch_size
from reducer.engine.engine import Engine, Hooks, Replay
from reducer.engine.evaluate import Evaluator
from reducer.engine.journal import Journal
from reducer.engine.schedule import Schedule
from reducer.text.edits import Edit

CODE = b"""int keep_me(int a, int b) { return a + b; }
int drop1() { return 1; }
struct Drop2 { int x; int y; };
int main() { int unused = 3; return keep_me(1, 2); }
"""


@dataclass
class Contains(NoConfirmation):
    """Interesting while every needle is in the candidate; counts calls."""

    needles: tuple[bytes, ...]
    calls: list = field(default_factory=list)

    ignores_layout = False
    tree = None

    def identity(self):
        return {"needles": self.needles}

    def test(self, content: bytes) -> Verdict:
        self.calls.append(content)
        return Verdict(all(n in content for n in self.needles))


def reduce(text, oracle, jobs=1, backend="threading", adaptive=False, **kw):
    with Evaluator(oracle, jobs, backend) as ev:
        schedule = Schedule(first=passes.resolve(list(passes.FIRST)), main=passes.resolve(list(passes.MAIN)),
                            last=passes.resolve(list(passes.LAST)), adaptive=adaptive)
        engine = Engine(ev, "cpp", schedule, **kw)
        return engine.reduce(text), ev


def test_reduces_to_what_the_oracle_needs():
    out, _ = reduce(CODE, Contains((b"keep_me(1, 2)",)))
    assert b"keep_me(1, 2)" in out and b"drop1" not in out and b"Drop2" not in out and b"unused" not in out


def test_result_does_not_depend_on_jobs():
    results = {jobs: reduce(CODE, Contains((b"keep_me", b"return")), jobs)[0] for jobs in (1, 2, 3)}
    assert len(set(results.values())) == 1


class SlowFirst(NoConfirmation):
    """The first candidate takes a second, every other a twentieth; records when each ran."""

    ignores_layout = False
    tree = None

    def __init__(self, interesting):
        self.interesting, self.spans, self.lock = interesting, {}, threading.Lock()

    def identity(self):
        return {}

    def test(self, content: bytes) -> Verdict:
        start = time.monotonic()
        time.sleep(1.0 if content == b"slow" else 0.05)
        with self.lock:
            self.spans[content] = (start, time.monotonic())
        return Verdict(content in self.interesting)


def test_a_slot_is_refilled_as_soon_as_its_test_ends_and_the_answer_is_the_first_in_order():
    """A batch of -j tests waited for its slowest; now quick tests run beside a slow one, up to
    the first interesting one, and the answer is still the first interesting in proposal order."""
    candidates = [b"slow", *(b"q%d" % i for i in range(1, 9))]
    oracle = SlowFirst({b"q3", b"q6"})
    with Evaluator(oracle, 2, "threading") as ev:
        assert ev.first_interesting(candidates)[0] == 3
    slow_end = oracle.spans[b"slow"][1]
    assert {c for c, (_, end) in oracle.spans.items() if end < slow_end} == {b"q1", b"q2", b"q3"}
    oracle = SlowFirst({b"slow", b"q2"})
    with Evaluator(oracle, 2, "threading") as ev:
        assert ev.first_interesting(candidates)[0] == 0
    assert b"q2" in oracle.spans and b"q3" not in oracle.spans  # nothing after an interesting one starts


def test_a_test_still_running_when_the_answer_comes_runs_on_and_a_later_search_takes_it_over():
    """The answer does not wait for the slower tests after it (its confirmation can start); their
    verdicts are remembered when they end, and a search that draws one meanwhile waits for it
    rather than testing it again."""
    oracle = SlowFirst({b"q1"})
    with Evaluator(oracle, 2, "threading") as ev:
        assert ev.first_interesting([b"q1", b"slow"])[0] == 0
        assert b"slow" not in oracle.spans  # answered while it runs
        assert ev.first_interesting([b"slow", b"q2"]) is None
        assert ev.counters.tests == 3  # `slow` was tested once
    assert oracle.spans[b"q1"][1] < oracle.spans[b"slow"][1]


def test_a_core_left_idle_tests_what_the_caller_asks_next_should_the_test_in_flight_be_the_answer():
    """A one-candidate search leaves a core idle: the candidate the caller would ask about next,
    were that one the answer, is tested there meanwhile, and the next search takes it over."""
    oracle = SlowFirst({b"slow", b"q2"})
    with Evaluator(oracle, 2, "threading") as ev:
        assert ev.first_interesting([b"slow"], successor=lambda index: b"q%d" % (index + 2))[0] == 0
        assert ev.first_interesting([b"q2"])[0] == 0
        assert ev.counters.tests == 2 and (ev.counters.speculated, ev.counters.speculated_used) == (1, 1)
    assert oracle.spans[b"q2"][1] < oracle.spans[b"slow"][1]  # it ran beside the slow one
    oracle = SlowFirst(set())
    with Evaluator(oracle, 2, "threading") as ev:  # no bet on what the search tests itself, nor on what is known
        assert ev.first_interesting([b"q1"]) is None
        assert ev.first_interesting([b"slow"], successor=lambda index: b"slow") is None
        assert ev.first_interesting([b"slow"], successor=lambda index: b"q1") is None
        assert (ev.counters.tests, ev.counters.speculated) == (2, 0)


def test_a_pass_keeping_one_step_after_another_has_each_next_step_tested_beside_it_and_the_path_is_j1s():
    """`unused` takes a chain of helpers one per search (each deletion leaves the next unused):
    at -j 2 the next deletion is tested beside the one in flight. The kept steps, and so the
    result, are -j 1's, and -j 1's tests are among -j 2's."""

    class Slow(Contains):
        def test(self, content: bytes) -> Verdict:
            time.sleep(0.02)
            return super().test(content)

    chain = b"int g9(int a) { return a; }\n" + b"".join(
        b"int g%d(int a) { return g%d(a) + 1; }\n" % (i, i + 1) for i in range(8, -1, -1))
    runs = {}
    for jobs in (1, 2):
        oracle = Slow((b"keep_me", b"return"))
        out, ev = reduce(CODE + chain, oracle, jobs)
        runs[jobs] = out, set(oracle.calls), ev.counters
    assert runs[1][0] == runs[2][0] and b"g0" not in runs[1][0]
    assert runs[1][1] <= runs[2][1]
    assert runs[1][2].speculated == 0 and runs[2][2].speculated_used >= 5


def test_the_compilers_answers_about_the_next_step_are_asked_ahead_while_this_one_is_tested():
    """A pass whose every enumeration asks the compiler (a footprint pass's) keeps one step per
    search: at -j 2, while a step is tested, the front-end run its enumeration needs on that
    step's text runs on the idle core, and the enumeration after the step is kept takes its
    output. The front end reads what it reads at -j 1, and the path is -j 1's."""
    from reducer.passes import Pass
    from reducer.text.edits import deletion
    from reducer.text.values import ClangValues

    class FirstLineAsked(Pass):
        name, summary = "first-line-asked", "delete the first line, once the compiler has read the text"

        def enumerate(self, src):
            src.values.marks(src.text)
            end = src.text.index(b"\n") + 1
            return [deletion(0, end)] if src.text.count(b"\n") > 1 else []

    class Slow(Contains):
        def test(self, content: bytes) -> Verdict:
            time.sleep(0.1)
            return super().test(content)

    text = b"".join(b"int g%d;\n" % i for i in range(6)) + b"int keep;\n"
    runs = {}
    for jobs in (1, 2):
        read = []

        def front_end(content, read=read):
            time.sleep(0.1)
            read.append(content)
            return ""

        values = ClangValues(front_end)
        with Evaluator(Slow((b"keep",)), jobs, "threading") as ev:
            engine = Engine(ev, "cpp", Schedule(main=[FirstLineAsked()]), values=values)
            runs[jobs] = engine.reduce(text), sorted(read), values.stats
    assert runs[1][0] == runs[2][0] == b"int keep;\n"
    assert runs[1][1] == runs[2][1]  # the same texts read, as often
    assert runs[1][2].ahead == 0 and runs[2][2].ahead_used >= 5


def test_a_budget_used_up_leaves_the_tests_running_on_to_finish():
    """A run stopped by its budget still confirms what it kept (Engine.settle), and that
    confirmation's builds wait behind the tests running on: they finish and are remembered,
    rather than being killed with the confirmation's builds."""
    oracle = SlowFirst({b"q1"})
    with Evaluator(oracle, 2, "threading", budget=Budget(tests=2)) as ev:
        assert ev.first_interesting([b"q1", b"slow"])[0] == 0
        try:
            ev.first_interesting([b"q2"])
            raise AssertionError("the budget of two tests was not used")
        except BudgetExhausted:
            pass
    assert ev.store.lookup(b"slow") is not None


def test_the_next_candidate_is_made_while_the_tests_run():
    """The caller's work on a candidate (edits, parse, join) and its layout key are done while
    the tests in flight run, not after one ends with its slot idle."""
    oracle, made = SlowFirst(set()), {}

    def candidates():
        for c in (b"q1", b"q2", b"q3"):
            made[c] = time.monotonic()
            yield c

    with Evaluator(oracle, 2, "threading") as ev:
        assert ev.first_interesting(candidates()) is None
    assert made[b"q3"] < min(end for _, end in oracle.spans.values())


def test_each_distinct_candidate_is_tested_once():
    oracle = Contains((b"keep_me",))
    reduce(CODE, oracle)
    assert len(oracle.calls) == len(set(oracle.calls))


def test_prefilter_keeps_parse_errors_out_and_can_be_disabled():
    oracle = Contains((b"keep_me",))
    out, _ = reduce(CODE, oracle)
    from reducer.text.source import Source
    assert Source(out, "cpp").error_count == 0
    assert all(Source(c, "cpp").error_count == 0 for c in oracle.calls)
    unfiltered = Contains((b"keep_me",))
    reduce(CODE, unfiltered, prefilter=False)
    assert any(Source(c, "cpp").error_count > 0 for c in unfiltered.calls)


class _Unbalance(passes.Pass):
    """One item: `{` for `(`, a parse error, though no token a pass like it changes."""

    name, summary = "unbalance", "test"

    def enumerate(self, src):
        i = src.text.index(b"(")
        return [(Edit(i, i + len(b"(int a, int b)"), b"{"),)]


def test_the_prefilter_leaves_passes_that_change_no_token_alone():
    """Their candidates' parse errors are the parser's recovery noise (ck_tile's comments)."""
    for neutral in (False, True):
        oracle = Contains((b"keep_me",))
        p = type("P", (_Unbalance,), {"well_formed": neutral})()
        with Evaluator(oracle, 1, "threading") as ev:
            Engine(ev, "cpp", Schedule(first=[p], main=[], last=[])).reduce(CODE)
        assert any(b"keep_me{" in c for c in oracle.calls) == neutral


def test_a_pass_that_puts_a_unit_of_the_grammar_in_place_is_not_prefiltered():
    """Inlining both aliases writes `typename G<I>::type{}`, valid C++ that tree-sitter reads as
    two errors: the chunk of both is tested, as every alias inlining was on ck_tile's result."""
    code = b"""template <int N> struct G { using type = int; };
template <int I> int f() {
  using R = typename G<I>::type;
  using S = typename G<I + 1>::type;
  return int(R{}) + int(S{});
}
int keep_me() { return f<3>(); }
"""
    aliases = passes.REGISTRY["aliases"]
    assert aliases.well_formed and not passes.REGISTRY["tokens"].well_formed
    oracle = Contains((b"keep_me",))
    with Evaluator(oracle, 1, "threading") as ev:
        engine = Engine(ev, "cpp", Schedule(first=[aliases], main=[], last=[]))
        result = engine.reduce(code)
    assert b"using R" not in result and b"using S" not in result and b"int(typename G<I>::type{})" in result
    assert engine.status.per_pass["aliases"].tests == 1 and engine.status.prefiltered == 0


@dataclass
class FlakyMachine(NoConfirmation):
    """The first test of each candidate dies of a machine failure, the retry answers."""

    seen: set = field(default_factory=set)

    ignores_layout = False
    tree = None

    def identity(self):
        return {}

    def test(self, content: bytes) -> Verdict:
        if content not in self.seen:
            self.seen.add(content)
            return Verdict(False, "killed", infra_failure=True)
        return Verdict(b"keep" in content)


def test_infrastructure_failures_are_retried_not_remembered():
    oracle = FlakyMachine()
    with Evaluator(oracle) as ev:
        assert ev.test(b"keep").interesting
        assert ev.counters.infra_retries == 1 and ev.counters.tests == 2
        assert ev.test(b"keep").interesting and ev.counters.tests == 2  # the answer is memoised


def test_candidates_never_grow():
    oracle = Contains((b"keep_me",))
    reduce(CODE, oracle)
    sizes = [len(c) for c in oracle.calls]
    assert max(sizes) <= len(CODE)


class Expands(passes.Pass):
    """Replaces an `@` by `word`: a stand-in for instantiate, whose steps may grow the file."""

    name = "expand"
    summary = "replaces an @ by a word"
    growth = 0.1

    def __init__(self, word: bytes):
        super().__init__()
        self.word = word

    def enumerate(self, src):
        return [(Edit(i, i + 1, self.word),) for i in range(len(src.text)) if src.text[i:i + 1] == b"@"]

    def progress(self, src):
        return src.text.count(b"@")


def test_a_pass_with_a_measure_of_its_own_may_grow_the_file_within_its_bound():
    text = b"keep @ @ @\n" + b"x" * 100
    with Evaluator(Contains((b"keep",)), 1) as ev:
        engine = Engine(ev, "cpp", Schedule(main=[Expands(b"ab")]))
        assert engine.reduce(text) == text.replace(b"@", b"ab")  # each step: one byte more, one @ less
    with Evaluator(Contains((b"keep",)), 1) as ev:
        engine = Engine(ev, "cpp", Schedule(main=[Expands(b"a" * 20)]))
        assert engine.reduce(text) == text and ev.counters.tests == 0  # 19 bytes more: beyond a tenth
    assert engine.status.per_pass["expand"].not_smaller > 0


@dataclass
class LayoutBlind(Contains):
    ignores_layout = True


def test_a_layout_key_rejects_without_a_test_but_never_accepts():
    """A respacing of a rejected candidate is rejected from memory; a respacing of an
    interesting one is tested for its own bytes (`extern"C"x` is not `extern "C" x`)."""
    blind = LayoutBlind((b"keep_me",))
    with Evaluator(blind) as ev:
        assert not ev.test(b"int drop_me;  // note\n").interesting
        assert not ev.test(b"int   drop_me;\n").interesting and len(blind.calls) == 1
        assert ev.counters.layout_rejects == 1
        assert ev.test(b"int keep_me;  // note\n").interesting
        assert ev.test(b"int   keep_me;\n").interesting and len(blind.calls) == 3
        assert ev.counters.layout_retests == 1  # what the exact-bytes rule cost: one test
        assert ev.first_interesting([b"int keep_me; "]) is not None and len(blind.calls) == 4
    seeing = Contains((b"keep_me",))
    with Evaluator(seeing) as ev:
        ev.test(b"int drop_me;  // note\n")
        ev.test(b"int   drop_me;\n")
    assert len(seeing.calls) == 2

@dataclass
class LiesOnce(NoConfirmation):
    """Truthful but for one candidate, called interesting the first time it is seen (a wrong
    verdict in a cache, a flaky test): each failure names the first needle missing."""

    needles: tuple[bytes, ...]
    lie: bytes  # the first candidate without this is called interesting
    calls: list = field(default_factory=list)

    ignores_layout = False
    tree = None

    def identity(self):
        return {}

    def test(self, content: bytes) -> Verdict:
        self.calls.append(content)
        if self.lie not in content and not any(self.lie not in c for c in self.calls[:-1]):
            return Verdict(True)
        missing = [n for n in self.needles if n not in content]
        return Verdict(not missing, f"missing {missing[0].decode()}" if missing else "")


def test_a_best_that_stops_moving_is_tested_again_and_rolled_back_when_broken():
    oracle = LiesOnce((b"int x;", b"keep_me"), lie=b"int x;")
    with Evaluator(oracle) as ev:
        engine = Engine(ev, "cpp", Schedule(main=passes.resolve(["tree-delete", "tokens"])), stall_window=4)
        out = engine.reduce(b"int x;\nint y;\nint z;\nint keep_me;\nint w;\n")
    assert b"int x;" in out and b"keep_me" in out
    assert [s.get("rolled_back_to") is not None for s in engine.status.stalls][:1] == [True]
    assert not engine.status.stalls[0]["best_interesting"]


class BreaksBelow(passes.REGISTRY["lines"].__class__):
    """`lines`, until the file is below `size` bytes: then it raises while enumerating (or, with
    `stage="apply"`, proposes an item `apply` cannot apply). `raises=False` never breaks."""

    name = "breaks"
    summary = "lines until it breaks"

    def __init__(self, size: int, stage: str = "items", raises: bool = True):
        super().__init__()
        self.size, self.stage, self.raises = size, stage, raises

    def enumerate(self, src):
        items = super().enumerate(src)
        if len(src.text) >= self.size or not self.raises:
            return items
        if self.stage == "items":
            raise ValueError("broken on purpose")
        from reducer.text.edits import Edit
        return [(Edit(0, 1, "not bytes"),), *items]


LINES = b"".join(b"int v%d = %d;\n" % (i, i) for i in range(40)) + b"int keep_me;\n"


def run_with(pass_, bugs=None, jobs=1):
    reported = []
    with Evaluator(Contains((b"keep_me", b"v7 ")), jobs, "threading") as ev:
        engine = Engine(ev, "cpp", Schedule(main=[pass_, *passes.resolve(["tree-delete"])]),
                        hooks=Hooks(on_pass_bug=reported.append), replay=Replay(bugs=bugs or {}))
        return engine.reduce(LINES), engine, reported


def test_a_pass_that_raises_is_reported_once_and_dropped_and_the_run_goes_on():
    for stage in ("items", "apply"):
        out, engine, reported = run_with(BreaksBelow(300, stage))
        assert out == b"int v7 = 7;\nint keep_me;\n"  # tree-delete went on without it
        assert [b.pass_name for b in reported] == ["breaks"] and engine.status.dropped == ["breaks"]
        bug = reported[0]
        assert bug.stage == stage and len(bug.text) < 300 and b"keep_me" in bug.text and not bug.replayed
        assert ("ValueError: broken on purpose" if stage == "items" else "TypeError") in bug.traceback
        assert bug.error.startswith("ValueError" if stage == "items" else "TypeError")
        assert (bug.edits[0] == (0, 1, "not bytes")) if stage == "apply" else bug.edits == []
        assert engine.status.per_pass["breaks"].accepted > 0  # it had worked until then


def test_a_replay_drops_the_pass_where_the_earlier_session_did_even_when_it_does_not_raise_again():
    for stage in ("items", "apply"):
        first, engine, reported = run_with(BreaksBelow(300, stage))
        recorded = {reported[0].run: reported[0].searches}
        # the same pass, or one whose bug does not show this time (its items are the same until then)
        for pass_ in (BreaksBelow(300, stage), *([BreaksBelow(300, stage, raises=False)] if stage == "items" else [])):
            out, again, replayed = run_with(pass_, bugs=recorded)
            assert out == first and again.status.dropped == ["breaks"]
            assert [b.replayed for b in replayed] == [True]
            assert again.status.per_pass["breaks"].accepted == engine.status.per_pass["breaks"].accepted
    _, free, _ = run_with(BreaksBelow(300, raises=False))  # without the recorded drop it would go on
    assert free.status.dropped == [] and free.status.per_pass["breaks"].accepted > 1


def test_tests_and_rejections_are_counted_for_the_pass_that_proposed_them():
    oracle = Contains((b"keep_me(1, 2)",))
    with Evaluator(oracle, 2, "threading") as ev:
        engine = Engine(ev, "cpp", Schedule(main=passes.resolve(["tree-delete", "tokens", "parens"])))
        engine.reduce(CODE)
        per_pass = engine.status.per_pass
        assert sum(y.tests for y in per_pass.values()) == ev.counters.tests == len(oracle.calls)
        assert per_pass["tokens"].prefiltered > 0 and per_pass["tree-delete"].tests > 0
        assert sum(y.prefiltered for y in per_pass.values()) == engine.status.prefiltered
        assert ev.label == ""  # outside a pass, tests are nobody's


def test_adaptive_sweeps_rerun_only_the_passes_that_removed_something():
    runs: list[tuple[int, bool, str]] = []
    oracle = Contains((b"keep_me(1, 2)",))
    with Evaluator(oracle) as ev:
        engine = Engine(ev, "cpp", Schedule(main=passes.resolve(list(passes.MAIN)), adaptive=True),
                        hooks=Hooks(on_event=lambda kind, s: kind == "pass" and runs.append(
                            (s.sweep, s.full_sweep, s.current_pass))))
        out = engine.reduce(CODE)
    sweeps = {}
    for sweep, full, name in runs:
        sweeps.setdefault(sweep, (full, []))[1].append(name)
    assert sweeps[1][0] and not all(full for full, _ in sweeps.values())  # full first, then partial ones
    assert not sweeps[max(sweeps)][1] or sweeps[max(sweeps)][0]  # it ends on a full sweep
    # a sweep after a partial one runs a subset of it; after a full one, a subset of the main list
    for n in range(2, max(sweeps) + 1):
        full, names = sweeps[n]
        if not full:
            assert set(names) <= set(sweeps[n - 1][1])
    with Evaluator(Contains((b"keep_me(1, 2)",))) as ev:  # a fixpoint: a full sweep removes nothing more
        engine = Engine(ev, "cpp", Schedule(main=passes.resolve(list(passes.MAIN))))
        assert engine.reduce(out) == out
    same = {jobs: reduce(CODE, Contains((b"keep_me", b"return")), jobs, adaptive=True)[0] for jobs in (1, 3)}
    assert len(set(same.values())) == 1


def sweeps_run(jobs: int, rest_rate: int = 32) -> tuple[bytes, dict[int, tuple[bool, list[str]]], dict[str, int]]:
    """The result, each sweep's passes (and whether it ran every main pass), each pass's candidates asked."""
    runs: list[tuple[int, bool, str]] = []
    with Evaluator(Contains((b"keep_me(1, 2)",)), jobs, "threading") as ev:
        engine = Engine(ev, "cpp", Schedule(main=passes.resolve(list(passes.MAIN)), rest_rate=rest_rate),
                        hooks=Hooks(on_event=lambda kind, s: kind == "pass" and runs.append(
                            (s.sweep, s.full_sweep, s.current_pass))))
        out = engine.reduce(CODE)
    sweeps: dict[int, tuple[bool, list[str]]] = {}
    for sweep, full, name in runs:
        sweeps.setdefault(sweep, (full, []))[1].append(name)
    return out, sweeps, {name: (y.asked, y.rested) for name, y in engine.status.per_pass.items()}


def test_passes_that_paid_too_little_rest_a_sweep_the_same_at_any_jobs_and_the_run_ends_on_a_full_sweep():
    out, sweeps, asked = sweeps_run(1)
    assert not all(full for full, _ in sweeps.values())  # some sweep left a pass out
    assert sweeps[max(sweeps)][0]  # the last sweep ran every main pass (and removed nothing)
    assert sum(n for n, _ in asked.values()) > 0
    for name in set(passes.MAIN) - set(passes.REVISIT) - set(passes.COARSE):  # these run between others too
        assert asked[name][1] == sum(name not in ran for _, ran in sweeps.values()), name
    assert sweeps_run(3) == (out, sweeps, asked)  # candidates asked, rests and result: not -j's
    with Evaluator(Contains((b"keep_me(1, 2)",))) as ev:  # a fixpoint: a full sweep removes nothing more
        assert Engine(ev, "cpp", Schedule(main=passes.resolve(list(passes.MAIN)))).reduce(out) == out
    _, never, _ = sweeps_run(1, rest_rate=0)
    assert all(full for full, _ in never.values())


@dataclass
class ConfirmsWithout(Contains):
    """Interesting while every needle is in; confirmed only when `must` is in too (a stricter
    check, like the spill oracle's init guard). Counts confirmations."""

    must: bytes = b""
    confirmed: list = field(default_factory=list)
    confirm_steps = 2  # the second step is asked only when the first passes (at -j 1)
    confirm_cost = 2.0

    def confirm(self, content: bytes, verdict: Verdict, step: int) -> Verdict:
        if step == 0:
            self.confirmed.append(content)
        return Verdict(self.must in content, "" if self.must in content else "refused on confirmation")


def test_a_stricter_check_runs_only_on_candidates_kept_and_every_file_written_passes_it():
    for batch in (1, 16):
        oracle, written = ConfirmsWithout((b"keep_me",), must=b"int a"), []
        result, ev = reduce(CODE, oracle, confirm_batch=batch, hooks=Hooks(on_accept=written.append))
        assert b"keep_me" in result and b"int a" in result  # nothing was kept on the first check alone
        assert written and all(b"int a" in w for w in written)  # every checkpoint passes
        assert written[-1] == result
        # confirmed: checkpoints and bisections; the refused ones are never kept again
        assert ev.counters.confirms == len(oracle.confirmed) and ev.counters.unconfirmed > 0
        assert sum(b"int a" not in c for c in oracle.confirmed) == ev.counters.unconfirmed
        assert len(set(oracle.confirmed)) == len(oracle.confirmed)  # a confirmation is never asked twice
        for jobs in (2, 4):  # speculative interesting candidates are not confirmed: same result, same path
            other = ConfirmsWithout((b"keep_me",), must=b"int a")
            again, ev_j = reduce(CODE, other, jobs=jobs, confirm_batch=batch)
            assert again == result and other.confirmed == oracle.confirmed
            assert ev_j.counters.tests > ev.counters.tests  # speculative tests, some interesting, none confirmed


def test_a_pass_is_paid_for_what_it_keeps_not_for_what_a_refusal_sends_back():
    """The passes' bytes removed add up to what the run removed, refusals or not: a kept step
    that a refused confirmation drops comes off its pass, so the rest rule and the report see
    what it bought."""
    for batch in (1, 16):
        with Evaluator(ConfirmsWithout((b"keep_me",), must=b"int a"), 1, "threading") as ev:
            engine = Engine(ev, "cpp", Schedule(first=passes.resolve(list(passes.FIRST)),
                                                main=passes.resolve(list(passes.MAIN)),
                                                last=passes.resolve(list(passes.LAST))), confirm_batch=batch)
            result = engine.reduce(CODE)
        assert ev.counters.unconfirmed > 0  # some kept steps were refused and sent back
        removed = sum(y.bytes_removed for y in engine.status.per_pass.values())
        assert removed == len(CODE) - len(result), batch
        assert all(y.accepted >= 0 for y in engine.status.per_pass.values())


def test_a_replay_from_the_journal_takes_the_path_of_the_run_it_replays_refusals_included(tmp_path):
    """The journal holds the refusals of confirmations too; a replay that knew them before the
    engine asked would skip the refused candidates where the run had kept them, and go another
    way (and test again)."""
    def run(oracle):
        path: list[tuple[str, int, str]] = []
        with Evaluator(oracle, 1, "threading", journal=Journal(tmp_path / "journal.jsonl")) as ev:
            engine = Engine(ev, "cpp", Schedule(main=passes.resolve(list(passes.MAIN))), confirm_batch=1,
                            hooks=Hooks(on_event=lambda kind, s: kind in ("accept", "refused") and path.append(
                                (kind, s.size, s.current_pass))))
            result = engine.reduce(CODE)
            ev.journal.close()
        return result, path, {n: (y.asked, y.rested) for n, y in engine.status.per_pass.items()}

    first = ConfirmsWithout((b"keep_me",), must=b"int a")
    done = run(first)
    assert any(kind == "refused" for kind, _, _ in done[1])  # a kept candidate was refused
    again = ConfirmsWithout((b"keep_me",), must=b"int a")
    assert run(again) == done and again.calls == [] and again.confirmed == []


@dataclass
class ConfirmsSlowly(ConfirmsWithout):
    """ConfirmsWithout whose confirmation takes a while; records when each test and each
    confirmation step ran."""

    confirm_seconds: float = 0.05
    spans: list = field(default_factory=list)  # (kind, start, end)

    def test(self, content: bytes) -> Verdict:
        start = time.monotonic()
        verdict = super().test(content)
        time.sleep(0.002)
        self.spans.append(("test", start, time.monotonic()))
        return verdict

    def confirm(self, content: bytes, verdict: Verdict, step: int) -> Verdict:
        start = time.monotonic()
        time.sleep(self.confirm_seconds)
        result = super().confirm(content, verdict, step)
        self.spans.append(("confirm", start, time.monotonic()))
        return result


def test_tests_run_beside_a_confirmation_and_a_refusal_undoes_them_so_the_path_is_the_same_at_any_jobs():
    """With workers, the engine tests on beside the confirmation of the step it just kept, as if
    it will pass; when it is refused, the searches made on the refused text are undone: the
    same kept and refused steps in the same order, the same confirmations, the same counts of
    candidates asked per pass (the schedule's measure) as at -j 1."""
    def run(jobs):
        oracle, path = ConfirmsSlowly((b"keep_me",), must=b"int a"), []
        with Evaluator(oracle, jobs, "threading") as ev:
            engine = Engine(ev, "cpp", Schedule(main=passes.resolve(list(passes.MAIN))), confirm_batch=1,
                            hooks=Hooks(on_event=lambda kind, s: kind in ("accept", "refused") and path.append(
                                (kind, s.size, s.current_pass))))
            result = engine.reduce(CODE)
        asked = {n: (y.asked, y.accepted, y.bytes_removed) for n, y in engine.status.per_pass.items()}
        return (result, path, asked, oracle.confirmed), oracle.spans

    alone, _ = run(1)
    assert any(kind == "refused" for kind, _, _ in alone[1])
    beside, spans = run(2)
    assert beside == alone
    confirming = [(a, b) for kind, a, b in spans if kind == "confirm"]
    assert any(a < t_end and t_start < b for kind, t_start, t_end in spans if kind == "test" for a, b in confirming)


@dataclass
class ConfirmsCheap(ConfirmsWithout):
    """A confirmation of one build, a test's worth."""

    confirm_steps = 1
    confirm_cost = 1.0


@dataclass
class ConfirmsCostly(ConfirmsWithout):
    """A confirmation of six builds, six tests' worth."""

    confirm_steps = 6
    confirm_cost = 6.0


def test_confirming_kept_candidates_in_batches_confirms_fewer_times_the_more_a_confirmation_costs():
    counts = {}
    for kind in (ConfirmsCheap, ConfirmsCostly):
        for batch in (1, 16):
            oracle = kind((b"keep_me",), must=b"keep_me")  # every kept candidate passes
            result, ev = reduce(CODE, oracle, confirm_batch=batch)
            counts[kind, batch] = (result, ev.counters.confirms)
        assert counts[kind, 1][0] == counts[kind, 16][0]  # nothing refused: the same path
        assert counts[kind, 16][1] < counts[kind, 1][1]
    assert counts[ConfirmsCostly, 16][1] < counts[ConfirmsCheap, 16][1]
    assert counts[ConfirmsCostly, 16][1] <= counts[ConfirmsCostly, 1][1] / 2


def test_the_confirmation_batch_comes_from_the_runs_own_refusals_and_work():
    # the README's case late in its reduction: a seventh of kept candidates refused, ~18
    # candidates decided per kept one, a confirmation costing 3 tests: confirm each at once
    assert batch_size(16, 3, kept=272, refused=42, work=272 * 18) == 1
    # real-size code: no refusal in 17 kept steps of 3 tests each; batches grow with evidence
    early, later = batch_size(16, 1.5, 17, 0, 51), batch_size(16, 1.5, 170, 0, 510)
    assert 1 < early < later <= 16
    assert batch_size(4, 1.5, 10_000, 0, 30_000) == 4  # the limit holds
    assert batch_size(1, 1.5, 10_000, 0, 30_000) == 1


class Watches(passes.REGISTRY["lines"].__class__):
    """Proposes nothing; records the size of each file it is given (a stand-in for a folding pass)."""

    name = "watch"
    summary = "records what it sees"

    def __init__(self, name: str = "watch"):
        super().__init__(name)
        self.seen: list[int] = []

    def enumerate(self, src):
        self.seen.append(len(src.text))
        return []


def test_revisit_passes_run_again_mid_pass_once_the_file_has_shrunk_enough():
    watch, runs = Watches(), []
    with Evaluator(Contains((b"keep_me", b"v7 ")), 1) as ev:
        engine = Engine(ev, "cpp", Schedule(main=[watch, *passes.resolve(["lines"])], revisit=[watch]),
                        hooks=Hooks(on_event=lambda kind, s: kind == "pass" and runs.append((s.sweep, s.current_pass))))
        out = engine.reduce(LINES)
    assert out == b"int v7 = 7;\nint keep_me;\n"
    # sweep 1: at its start, then within `lines` after each accept that left at most 80% of the size
    # at its last run; then once per later sweep
    first = [n for sweep, n in runs if sweep == 1]
    assert first[:2] == ["watch", "lines"] and first.count("watch") > 1 and first[-1] == "lines"
    sizes = watch.seen[:first.count("watch")]
    assert all(b <= 0.8 * a for a, b in zip(sizes, sizes[1:]))
    assert engine.status.per_pass["watch"].tests == 0 and engine.status.per_pass["lines"].tests == ev.counters.tests
    # without revisit passes: once per sweep
    plain = Watches()
    with Evaluator(Contains((b"keep_me", b"v7 ")), 1) as ev:
        assert Engine(ev, "cpp", Schedule(main=[plain, *passes.resolve(["lines"])])).reduce(LINES) == out
    assert len(plain.seen) < len(watch.seen)


@dataclass
class Labelled(Contains):
    """Contains, recording the pass each test is charged to (the evaluator's label)."""

    ev: Evaluator | None = None
    labels: list = field(default_factory=list)

    def test(self, content: bytes) -> Verdict:
        self.labels.append(self.ev.label)
        return super().test(content)


def test_a_revisit_within_a_pass_is_charged_its_own_tests_and_the_pass_the_rest():
    oracle = Labelled((b"keep_me", b"v7 "))
    tokens = passes.resolve(["tokens"])  # a revisit pass with tests of its own
    with Evaluator(oracle, 1) as ev:
        oracle.ev = ev
        engine = Engine(ev, "cpp", Schedule(main=[*passes.resolve(["lines"]), *tokens], revisit=tokens))
        engine.reduce(LINES)
    runs = [label for label, _ in groupby(oracle.labels)]
    assert runs[:3] == ["lines", "tokens", "lines"]  # `tokens` interrupted `lines`, which went on
    assert {n: y.tests for n, y in engine.status.per_pass.items()} == Counter(oracle.labels)
    assert ev.label == ""


def sweeps_of(schedule_kw: dict, main, text: bytes, needles: tuple[bytes, ...]) -> dict[int, list[str]]:
    """The passes each sweep ran, in order (a pass run counted once, however many searches)."""
    runs: dict[int, list[str]] = {}

    def on_event(kind, s):
        if kind == "pass":
            runs.setdefault(s.sweep, []).append(s.current_pass)

    with Evaluator(Contains(needles), 1) as ev:
        Engine(ev, "cpp", Schedule(main=main, **schedule_kw), hooks=Hooks(on_event=on_event)).reduce(text)
    return runs


def test_revisit_passes_run_after_a_pass_that_changed_the_file_and_only_then():
    watch, idle = Watches(), Watches("idle")
    lines = [b"int v%d = %d;\n" % (i, i) for i in range(12)]
    text = b"".join(lines)  # `lines` may delete one of twelve: less than the fifth of a mid-pass revisit
    runs = sweeps_of({"revisit": [watch]}, [watch, *passes.resolve(["lines"]), idle], text,
                     tuple(l.strip() for l in lines if b"v5 " not in l))
    assert runs == {1: ["watch", "lines", "watch", "idle"], 2: ["watch", "lines", "idle"]}


class Renames(Watches):
    """Proposes one edit once the file is small: `int v11 = 11;` -> `int v11;` (a stand-in for `plain`, whose
    change leaves the passes before it something new)."""

    name = "renames"

    def enumerate(self, src):
        self.seen.append(len(src.text))
        at = src.text.find(b"v11 = 11")
        return [(Edit(at + 3, at + 8),)] if at >= 0 and len(src.text) < 100 else []


def test_a_revisit_pass_that_changed_the_file_within_a_pass_runs_the_revisit_passes_before_it_again():
    """Within `lines`, the revisit passes run once the file has shrunk by a fifth; when `renames`
    (after `watch`) changes it there, `watch` runs again at once, not once it has shrunk by a
    fifth more."""
    watch, renames = Watches(), Renames("renames")
    lines = [b"int v%d = %d;\n" % (i, i) for i in range(12)]
    needles = (b"v0 ", b"v1 ", b"v11")
    runs: list[str] = []
    with Evaluator(Contains(needles), 1) as ev:
        Engine(ev, "cpp", Schedule(main=[watch, renames, *passes.resolve(["lines"])], revisit=[watch, renames]),
               hooks=Hooks(on_event=lambda kind, s: kind == "pass" and runs.append(s.current_pass))).reduce(
            b"".join(lines))
    changed = renames.seen.index(next(n for n in renames.seen if n < 100))  # its run that changed the file
    at = [i for i, n in enumerate(runs) if n == "renames"][changed]
    assert runs[at - 1:at + 3] == ["watch", "renames", "watch", "lines"]


def test_coarse_passes_run_again_once_the_fine_passes_have_shrunk_the_file_by_a_tenth():
    first, watch, idle = Watches("coarse"), Watches(), Watches("idle")
    main = [first, watch, *passes.resolve(["lines"]), idle]
    runs = sweeps_of({"revisit": [watch], "coarse": [first, watch]}, main, LINES, (b"keep_me", b"v7 "))
    # sweep 1: `lines` leaves two lines of 41, then the coarse passes run before `idle`
    assert runs[1][:3] == ["coarse", "watch", "lines"] and runs[1][-3:] == ["coarse", "watch", "idle"]
    assert runs[2] == ["coarse", "watch", "lines", "idle"] and len(runs) == 2
    # `idle` the sweep's tail: with only it left, the coarse head waits for the next sweep's start
    runs = sweeps_of({"revisit": [watch], "coarse": [first, watch], "tail": [idle]}, main, LINES,
                     (b"keep_me", b"v7 "))
    assert runs[1].count("coarse") == 1 and runs[1][-2:] == ["lines", "idle"]
    assert runs[2] == ["coarse", "watch", "lines", "idle"] and len(runs) == 2
    # under a tenth: `lines` deletes one line of twelve and no coarse run follows
    lines = [b"int v%d = %d;\n" % (i, i) for i in range(12)]
    runs = sweeps_of({"revisit": [watch], "coarse": [first, watch], "coarse_shrink": 0.1}, main, b"".join(lines),
                     tuple(l.strip() for l in lines if b"v5 " not in l))
    assert runs[1] == ["coarse", "watch", "lines", "watch", "idle"]


def test_a_pass_starts_its_next_run_at_twice_the_largest_chunk_its_last_run_took():
    """Run 1 of `lines` (all items first) can only take the `a` lines one at a time; run 2, over
    the `k` lines that must stay, starts at chunks of 2 instead of all of them."""
    keep = tuple(f"k{i};".encode() for i in range(8))
    text = b"".join(b"a%d;\n%s\n" % (i, k) for i, k in enumerate(keep))
    oracle = Contains(keep)
    with Evaluator(oracle) as ev:
        engine = Engine(ev, "cpp", Schedule(main=passes.resolve(["lines"])))
        out = engine.reduce(text)
    assert out == b"".join(k + b"\n" for k in keep)
    assert len(text.splitlines()) - min(len(c.splitlines()) for c in oracle.calls) >= 8  # run 1: big chunks
    final = [c for c in oracle.calls if b"a" not in c]
    assert final and all(len(out.splitlines()) - len(c.splitlines()) <= 2 for c in final)


@dataclass
class AllOrNone(Contains):
    """Contains, and the `b` lines all there or all gone: they only go together, as an
    unreached declaration goes with the unreached ones that name it."""

    def test(self, content: bytes) -> Verdict:
        self.calls.append(content)
        return Verdict(all(n in content for n in self.needles) and content.count(b"b") in (0, 8))


class Together(passes.REGISTRY["lines"].__class__):
    name, summary, whole_first = "together", "lines, every run from all of them", True


def test_a_pass_whose_items_go_together_starts_every_run_at_all_of_them():
    """Run 1 takes the `a` lines one at a time; run 2, over the `k` and `b` lines, starts at
    chunks of 2, which split the `b`s, unless the pass says its items go together."""
    keep = tuple(f"k{i};".encode() for i in range(8))
    text = b"".join(b"a%d;\n%s\n" % (i, k) for i, k in enumerate(keep)) + b"".join(b"b%d;\n" % i for i in range(8))
    for p, bs in ((passes.REGISTRY["lines"], 8), (Together(), 0)):
        with Evaluator(AllOrNone(keep)) as ev:
            out = Engine(ev, "cpp", Schedule(main=[p])).reduce(text)
        assert b"a" not in out and all(k in out for k in keep) and out.count(b"b") == bs


def test_a_pass_that_took_nothing_starts_its_next_run_at_single_items():
    """Sweep 1: `lines` takes nothing (each line holds a needle), `tokens` takes the `x`s. Sweep 2's
    `lines` run, over the same eight lines, tries them one at a time, not in chunks of 4 and 2."""
    keep = tuple(f"k{i}".encode() for i in range(8))
    oracle = Contains(keep)
    with Evaluator(oracle) as ev:
        engine = Engine(ev, "cpp", Schedule(main=passes.resolve(["lines", "tokens"])))
        out = engine.reduce(b"".join(k + b" x;\n" for k in keep))
    assert b"x" not in out and len(out.splitlines()) == 8
    assert any(len(c.splitlines()) <= 6 for c in oracle.calls if b"x" in c)  # sweep 1: chunks
    assert all(len(c.splitlines()) >= 7 for c in oracle.calls if b"x" not in c)


@dataclass
class Compiles(Contains):
    """Contains, saying whether a candidate "compiles": not when `keep_me` is called but no
    longer defined, as a compiler oracle's verdict says (`Verdict.kind`)."""

    def test(self, content: bytes) -> Verdict:
        self.calls.append(content)
        if b"keep_me(1, 2)" in content and b"int keep_me(" not in content:
            return Verdict(False, "compile error: keep_me undeclared", kind=COMPILE_ERROR)
        return Verdict(all(n in content for n in self.needles), kind=BUILT)


def test_each_pass_is_charged_its_candidates_that_did_not_compile():
    oracle = Compiles((b"keep_me(1, 2)",))
    with Evaluator(oracle, 1, "threading") as ev:
        schedule = Schedule(first=passes.resolve(list(passes.FIRST)), main=passes.resolve(list(passes.MAIN)),
                            last=passes.resolve(list(passes.LAST)))
        engine = Engine(ev, "cpp", schedule)
        engine.reduce(CODE)
        per_pass = engine.status.per_pass
    failed = sum(b"keep_me(1, 2)" in c and b"int keep_me(" not in c for c in oracle.calls)
    assert failed > 0 and sum(y.compile_errors for y in per_pass.values()) == ev.counters.compile_errors == failed
    assert sum(y.build_known for y in per_pass.values()) == ev.counters.tests
    _, script = reduce(CODE, Contains((b"keep_me(1, 2)",)))  # a script's verdicts say nothing of it
    assert script.counters.compile_errors == script.counters.build_known == 0


def test_a_run_whose_budget_is_used_ends_with_its_newest_kept_candidate_confirmed():
    """Kept steps wait for their batch's checkpoint; a stop by the budget confirms them first,
    or the run would end a batch behind what it had found."""
    behind = 0
    for tests in (10, 15):  # the whole run takes about 20 tests
        oracle = ConfirmsCostly((b"keep_me",), must=b"keep_me")  # every kept candidate passes
        with Evaluator(oracle, 1, "threading", budget=Budget(tests=tests)) as ev:
            engine = Engine(ev, "cpp", Schedule(main=passes.resolve(list(passes.MAIN))), confirm_batch=16)
            try:
                engine.reduce(CODE)
            except BudgetExhausted:
                kept = engine._current()
            behind += engine.result() != kept  # the budget stopped it mid-batch
            engine.settle()
            assert engine.result() == kept and not engine._checkpoints.chain
            assert oracle.confirmed[-1] == kept
    assert behind


class CountedLines(passes.REGISTRY["lines"].__class__):
    """`lines`, counting its enumerations, carrying its items or not."""

    name, summary = "counted", "lines, counting its enumerations"

    def __init__(self, carries: bool):
        super().__init__()
        self.carries_items, self.enumerations = carries, 0

    def enumerate(self, src):
        self.enumerations += 1
        return super().enumerate(src)


def test_a_pass_that_carries_its_items_is_asked_again_only_once_they_are_used_up():
    """The same tests and result, at any jobs, with one enumeration where there was one per kept
    chunk: the footprint's passes pay a compiler run for each."""
    keep = tuple(f"k{i};".encode() for i in range(8))
    text = b"".join(b"x%d;\n%s\n" % (i, k) for i, k in enumerate(keep))
    runs = {}
    for carries in (False, True):
        for jobs in (1, 2):
            p, oracle = CountedLines(carries), Contains(keep)
            with Evaluator(oracle, jobs, "threading") as ev:
                out = Engine(ev, "cpp", Schedule(main=[p])).reduce(text)
            runs[carries, jobs] = out, oracle.calls, p.enumerations
    assert len({out for out, _, _ in runs.values()}) == 1 and b"x" not in runs[True, 1][0]
    assert runs[True, 1][1] == runs[False, 1][1]
    # at -j 2 a speculative test may or may not start before a verdict cancels it: only what
    # -j 1 decides is certain to be asked
    assert all(set(runs[c, 1][1]) <= set(runs[c, 2][1]) for c in (False, True))
    kept_chunks = runs[False, 1][2] - runs[True, 1][2]
    assert kept_chunks >= 4 and runs[True, 1][2] <= 3, (runs[False, 1][2], runs[True, 1][2])


class Unwrap(passes.base.Pass):
    """`(N ... N)` becomes what it wraps, each item's replacement a copy of its own inside, as
    `folded` makes a condition the branch it takes: the items nest."""

    name, summary = "unwrap", "unwrap (N ... N)"

    def __init__(self, carries: bool):
        super().__init__()
        self.carries_items, self.enumerations = carries, 0

    def enumerate(self, src):
        self.enumerations += 1
        text, items = src.text, []
        for m in re.finditer(rb"\((\d)", text):
            end = text.index(m.group(1) + b")", m.end()) + 2
            items.append((Edit(m.start(), end, text[m.end():end - 2]),))
        return items


def test_nested_items_a_kept_chunk_holds_are_carried_in_the_copy_it_made():
    """A chunk of nested items keeps the outer one (`apply`); the inner ones, and those nested in
    the chunk's copy, go on without the pass being asked again."""
    text = b"a(1b(2c(3x3)d2)e1)f(4y4)\n"
    runs = {}
    for carries in (False, True):
        p, oracle = Unwrap(carries), Contains((b"x", b"y"))
        with Evaluator(oracle, 1, "threading") as ev:
            out = Engine(ev, "cpp", Schedule(main=[p])).reduce(text)
        runs[carries] = out, oracle.calls, p.enumerations
    assert runs[True][0] == runs[False][0] and b"(" not in runs[True][0]
    assert runs[True][2] < runs[False][2] and runs[True][2] <= 3, (runs[False][2], runs[True][2])
