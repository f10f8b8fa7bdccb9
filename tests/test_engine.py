"""Engine and evaluator behaviour with small in-process oracles (the CLI tests use real ones)."""
from dataclasses import dataclass, field

from interestingness.verdict import Verdict
from reducer import passes
from reducer.engine import Engine
from reducer.evaluate import Evaluator

CODE = b"""int keep_me(int a, int b) { return a + b; }
int drop1() { return 1; }
struct Drop2 { int x; int y; };
int main() { int unused = 3; return keep_me(1, 2); }
"""


@dataclass
class Contains:
    """Interesting while every needle is in the candidate; counts calls."""

    needles: tuple[bytes, ...]
    calls: list = field(default_factory=list)

    ignores_layout = False

    def identity(self):
        return {"needles": self.needles}

    def test(self, content: bytes) -> Verdict:
        self.calls.append(content)
        return Verdict(all(n in content for n in self.needles))


def reduce(text, oracle, jobs=1, backend="threading", **kw):
    with Evaluator(oracle, jobs, backend) as ev:
        engine = Engine(ev, "cpp", first=passes.resolve(list(passes.FIRST)),
                        main=passes.resolve(list(passes.MAIN)), last=passes.resolve(list(passes.LAST)), **kw)
        return engine.reduce(text), ev


def test_reduces_to_what_the_oracle_needs():
    out, _ = reduce(CODE, Contains((b"keep_me(1, 2)",)))
    assert b"keep_me(1, 2)" in out and b"drop1" not in out and b"Drop2" not in out and b"unused" not in out


def test_result_does_not_depend_on_jobs():
    results = {jobs: reduce(CODE, Contains((b"keep_me", b"return")), jobs)[0] for jobs in (1, 2, 3)}
    assert len(set(results.values())) == 1


def test_each_distinct_candidate_is_tested_once():
    oracle = Contains((b"keep_me",))
    reduce(CODE, oracle)
    assert len(oracle.calls) == len(set(oracle.calls))


def test_prefilter_keeps_parse_errors_out_and_can_be_disabled():
    oracle = Contains((b"keep_me",))
    out, _ = reduce(CODE, oracle)
    from reducer.source import Source
    assert Source(out, "cpp").error_count == 0
    assert all(Source(c, "cpp").error_count == 0 for c in oracle.calls)
    unfiltered = Contains((b"keep_me",))
    reduce(CODE, unfiltered, prefilter=False)
    assert any(Source(c, "cpp").error_count > 0 for c in unfiltered.calls)


@dataclass
class FlakyMachine:
    """The first test of each candidate dies of a machine failure, the retry answers."""

    seen: set = field(default_factory=set)

    ignores_layout = False

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


@dataclass
class LayoutBlind(Contains):
    ignores_layout = True


def test_layout_only_variants_share_a_verdict_when_the_oracle_ignores_layout():
    blind = LayoutBlind((b"keep_me",))
    with Evaluator(blind) as ev:
        assert ev.test(b"int keep_me;  // note\n").interesting
        assert ev.test(b"int   keep_me;\n").interesting and len(blind.calls) == 1
    seeing = Contains((b"keep_me",))
    with Evaluator(seeing) as ev:
        ev.test(b"int keep_me;  // note\n")
        ev.test(b"int   keep_me;\n")
    assert len(seeing.calls) == 2
