"""The verdict store: one consistent state for the evaluator's threads, confirmations kept apart
from the tests' verdicts, claims that never outlive their tests."""
import json
import sqlite3
import threading
import time

import pytest

import reducer.engine.cache as reducer_cache
from interestingness.base.verdict import COMPILE_ERROR, NoConfirmation, Verdict
from interestingness.oracle.ir import IrOracle
from interestingness.oracle.script import ScriptOracle
from interestingness.oracle.spill import SpillOracle
from reducer.engine.cache import VerdictCache
from reducer.engine.evaluate import Evaluator
from reducer.engine.journal import Journal
from reducer.engine.verdicts import LAYOUT_MEMO, VerdictStore, digest


def store(tmp_path, cache=False, journal=True, layout=None):
    return VerdictStore(journal=Journal(tmp_path / "journal.jsonl") if journal else None,
                        cache=VerdictCache(tmp_path / "cache", {}) if cache else None,
                        stale_after=3600, layout=layout, clock=lambda: 1.0)


def records(tmp_path):
    return [json.loads(line) for line in (tmp_path / "journal.jsonl").read_text().splitlines()]


def claims(tmp_path):
    return sqlite3.connect(tmp_path / "cache" / "verdicts.sqlite").execute("SELECT COUNT(*) FROM claims").fetchone()[0]


def test_threads_adding_and_looking_up_keep_every_counter_exact(tmp_path):
    s = store(tmp_path)
    threads, per = 8, 150

    def work(n):
        for i in range(per):
            content = b"%d-%d" % (n, i)
            s.add(content, Verdict(i % 2 == 0, "" if i % 2 == 0 else "exit 1"))
            assert s.lookup(content) is not None
            s.count(tests=1, oracle_seconds=0.5)

    pool = [threading.Thread(target=work, args=(n,)) for n in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    assert s.counters.memo_hits == s.counters.tests == threads * per
    assert s.counters.oracle_seconds == threads * per * 0.5
    assert len(records(tmp_path)) == threads * per  # one whole journal line per settled verdict


def test_a_confirmation_is_a_record_of_its_own_in_memory_journal_and_cache(tmp_path):
    s = store(tmp_path, cache=True)
    s.add(b"x", Verdict(True))
    s.add_confirmation(b"x", Verdict(False, "refused on confirmation"))
    assert s.lookup(b"x").interesting  # the test's verdict stays what the test said
    assert s.confirmation(b"x").reason == "refused on confirmation" and s.counters.unconfirmed == 1
    journal = Journal(tmp_path / "journal.jsonl")
    assert journal.known[digest(b"x")].interesting and journal.tests == 1  # a confirmation is no test
    assert journal.confirmed[digest(b"x")].reason == "refused on confirmation"
    assert VerdictCache(tmp_path / "cache", {}).get(b"x").interesting
    fresh = store(tmp_path / "other", cache=False, journal=False)
    assert fresh.confirmation(b"x") is None
    cached = VerdictStore(journal=None, cache=VerdictCache(tmp_path / "cache", {}), stale_after=3600, layout=None,
                          clock=lambda: 1.0)
    assert cached.confirmation(b"x").reason == "refused on confirmation"


def test_a_session_tallies_per_pass_what_its_journal_lines_say(tmp_path):
    """A pass is charged its tests when their verdicts are journalled, under the label then, by
    the rule a resumed run reads the journal back with; another process's test awaited here is
    no test of this run."""
    s = store(tmp_path, cache=True)
    s.label = "lines"
    s.add(b"a", Verdict(False, "error: x", seconds=1.5, kind=COMPILE_ERROR))
    s.journal_check(b"a", Verdict(True, seconds=0.25))
    s.label = "tokens"
    s.add(b"b", Verdict(True, seconds=2.0))
    s.add_confirmation(b"b", Verdict(True, seconds=3.0))
    other = VerdictStore(journal=None, cache=VerdictCache(tmp_path / "cache", {}), stale_after=3600, layout=None,
                         clock=lambda: 1.0)
    assert other.claim(b"c")
    other.add(b"c", Verdict(True, seconds=9.0))
    assert s.wait(b"c").interesting and s.counters.shared_waits == 1
    assert dict(s.tally.tests) == {"lines": 2, "tokens": 1}
    assert dict(s.tally.compile_errors) == {"lines": 1, "tokens": 0} and s.tally.build_known["lines"] == 1
    assert s.tally.oracle_seconds == {"lines": 1.75, "tokens": 5.0}
    assert Journal(tmp_path / "journal.jsonl").earlier == s.tally


def test_a_claim_is_released_when_the_tests_raise(tmp_path):
    s = store(tmp_path, cache=True)
    assert s.claim(b"a") and s.claim(b"b") and claims(tmp_path) == 2
    s.release(b"a")
    s.release(b"b")
    assert claims(tmp_path) == 0

    class Broken(NoConfirmation):
        ignores_layout, tree = False, None

        def identity(self):
            return {}

        def test(self, content):
            raise RuntimeError("the oracle broke")

    with Evaluator(Broken(), cache=VerdictCache(tmp_path / "cache", {})) as ev, pytest.raises(RuntimeError):
        ev.test(b"c")
    assert claims(tmp_path) == 0
    with Evaluator(Broken(), 2, "threading", cache=VerdictCache(tmp_path / "cache", {})) as ev, \
            pytest.raises(RuntimeError):
        ev.first_interesting([b"d", b"e", b"f"])
    assert claims(tmp_path) == 0


def test_only_its_own_claims_are_released(tmp_path):
    s = store(tmp_path, cache=True)
    cache = VerdictCache(tmp_path / "cache", {})
    cache._db.execute("INSERT INTO claims VALUES (?, ?, ?, ?, ?)",  # another live run's test in flight
                      (cache._digest(cache._prefix + b"a"), cache._prefix + b"a", reducer_cache._HOST, 1, time.time()))
    assert not s.claim(b"a") and s.claim(b"b")
    s.release(b"a")
    s.release(b"b")
    assert claims(tmp_path) == 1


def test_a_layout_key_only_rejects(tmp_path):
    s = store(tmp_path, layout=lambda c: c.replace(b" ", b""))
    s.add(b"a b", Verdict(False, "exit 1"))
    s.add(b"c d", Verdict(True))
    assert s.lookup(b"ab").reason == "exit 1" and s.counters.layout_rejects == 1
    assert s.lookup(b"cd") is None and s.counters.layout_retests == 1


def test_a_candidates_layout_key_is_made_once(tmp_path):
    """Its lookup before the test and its verdict after it share one key; the memo stays bounded."""
    made = []
    s = store(tmp_path, journal=False, layout=lambda c: made.append(c) or c.replace(b" ", b""))
    for i in range(LAYOUT_MEMO + 10):
        content = b"x %d" % i
        assert s.lookup(content) is None
        s.add(content, Verdict(False, "exit 1"))
    assert made == [b"x %d" % i for i in range(LAYOUT_MEMO + 10)] and len(s._layouts) == LAYOUT_MEMO
    assert s.lookup(b"x0").reason == "exit 1" and len(made) == LAYOUT_MEMO + 11  # a respacing: a key of its own


def test_earlier_sessions_and_other_runs_answer_and_are_counted(tmp_path):
    first = store(tmp_path, cache=True)
    first.add(b"x", Verdict(False, "f.hip:3:1: error: nope"))
    first.journal.close()
    again = store(tmp_path, cache=True)
    assert again.lookup(b"x").reason.endswith("nope") and again.counters.replayed == 1
    assert again.lookup(b"x") is not None and again.counters.memo_hits == 1
    other = store(tmp_path, cache=True, journal=False)  # another run, on the same cache
    assert other.lookup(b"x") is not None and other.counters.cache_hits == 1


def test_a_streak_of_one_failure_moved_by_the_text_before_it_is_a_stall(tmp_path):
    s = store(tmp_path, journal=False)
    for i in range(3):
        s.add(b"%d" % i, Verdict(False, f"f.hip:{10 + i}:3: error: x"))
    assert s.stalled(3) and not s.stalled(4)
    s.forget_streak()
    assert not s.stalled(1)


def test_a_claim_released_without_a_verdict_is_tested_here(tmp_path):
    """Another live run claimed the candidate, then let go of it without a verdict (a failure of
    its machinery): the evaluator stops waiting and tests it itself, once."""
    cache = VerdictCache(tmp_path / "cache", {})
    cache._db.execute("INSERT INTO claims VALUES (?, ?, ?, ?, ?)",
                      (cache._digest(cache._prefix + b"x"), cache._prefix + b"x", reducer_cache._HOST, 1, time.time()))
    calls = []

    class Counts(NoConfirmation):
        ignores_layout, tree = False, None

        def identity(self):
            return {}

        def test(self, content):
            calls.append(content)
            return Verdict(True)

    threading.Timer(0.3, lambda: VerdictCache(tmp_path / "cache", {})._db.execute("DELETE FROM claims")).start()
    with Evaluator(Counts(), cache=cache) as ev:
        assert ev.test(b"x").interesting
    assert calls == [b"x"] and ev.counters.shared_waits == 0 and claims(tmp_path) == 0


def test_every_oracle_has_what_the_evaluator_uses():
    for oracle in (SpillOracle, ScriptOracle, IrOracle):
        assert all(hasattr(oracle, m) for m in ("ignores_layout", "confirm_steps", "confirm_cost", "identity", "test", "confirm"))
    assert ScriptOracle(None, "f.c").tree is None and IrOracle.tree is None  # the spill oracle sets its own
