"""The persistent verdict cache, against the faults the compile-cache reviews found."""
import threading

from conftest import needs_clang22

import reducer.engine.cache as reducer_cache
from interestingness.base.verdict import NoConfirmation, Verdict
from interestingness.oracle.spill import SpillSetup
from reducer.engine.cache import VerdictCache
from reducer.engine.evaluate import Evaluator


def test_same_digest_different_key_is_a_miss(tmp_path):
    cache = VerdictCache(tmp_path, {"o": 1}, digest=lambda key: "same-digest-for-all")
    cache.put(b"candidate A", Verdict(True))
    assert cache.get(b"candidate A").interesting
    assert cache.get(b"candidate B") is None and cache.collisions == 1
    cache.put(b"candidate B", Verdict(False, "exit 1"))
    assert cache.get(b"candidate A") is None  # B replaced A under the shared index, A is not answered by B
    assert cache.get(b"candidate B").reason == "exit 1"


def test_key_covers_the_oracle_identity(tmp_path):
    VerdictCache(tmp_path, {"flags": ["-O3"]}).put(b"x", Verdict(True))
    assert VerdictCache(tmp_path, {"flags": ["-O3"]}).get(b"x").interesting  # shared across runs
    assert VerdictCache(tmp_path, {"flags": ["-O2"]}).get(b"x") is None


def test_infrastructure_failures_are_not_stored_but_compile_errors_are(tmp_path):
    cache = VerdictCache(tmp_path, {})
    cache.put(b"a", Verdict(False, "signal 9", infra_failure=True))
    cache.put(b"b", Verdict(False, "compile error (lto): x.hip:1: error"))
    cache.put(b"c", Verdict(False, "timeout after 5s"))
    assert cache.get(b"a") is None
    assert "compile error" in cache.get(b"b").reason and "timeout" in cache.get(b"c").reason


def test_lru_bounds_hold(tmp_path):
    cache = VerdictCache(tmp_path, {}, max_entries=3)
    for i in range(5):
        cache.put(b"c%d" % i, Verdict(False))
        cache.get(b"c0")  # keep c0 recently used
    assert cache.entries() == 3 and cache.get(b"c0") is not None and cache.get(b"c1") is None
    small = VerdictCache(tmp_path / "small", {}, max_bytes=600)
    for i in range(10):
        small.put(b"x" * 100 + b"%d" % i, Verdict(False))
    assert small.entries() < 10
    off = VerdictCache(tmp_path / "off", {}, max_entries=0)
    off.put(b"x", Verdict(True))
    assert off.get(b"x") is None and not (tmp_path / "off").exists()


def test_limits_are_checked_at_open_and_every_64th_of_them_not_at_each_put(tmp_path):
    """A put does not count the table; a run leaves the cache less than 1/64 of its limit (at
    most 63 entries) over, and the next run to open it brings it back under."""
    cache = VerdictCache(tmp_path, {}, max_entries=640)  # a check every 10 puts
    counted = []
    evict = cache._evict
    cache._evict = lambda: counted.append(cache.entries()) or evict()
    for i in range(700):
        cache.put(b"c%d" % i, Verdict(False))
        assert cache.entries() < 640 + 10
    assert len(counted) == 70 and max(counted) == 640 + 10  # counted with the 10th put, then evicted
    assert cache.get(b"c59") is None and cache.get(b"c60") is not None  # least recently used first
    assert VerdictCache(tmp_path, {}, max_entries=100).entries() == 100
    assert cache.get(b"c60") is not None and cache.get(b"c600") is None and cache.get(b"c601") is not None
    plan = cache._db.execute("EXPLAIN QUERY PLAN SELECT COUNT(*), SUM(size) FROM entries").fetchall()
    assert "COVERING INDEX" in str(plan)  # the sizes are summed without reading the keys


class CountingOracle(NoConfirmation):
    def __init__(self):
        self.calls, self.lock = [], threading.Lock()

    ignores_layout = False
    tree = None

    def identity(self):
        return {}

    def test(self, content):
        with self.lock:
            self.calls.append(content)
        return Verdict(content == b"winner")


def test_duplicates_in_flight_are_evaluated_once(tmp_path):
    oracle = CountingOracle()
    with Evaluator(oracle, jobs=4, backend="threading", cache=VerdictCache(tmp_path, {})) as ev:
        found = ev.first_interesting([b"a", b"a", b"b", b"a", b"winner"])
    assert found[0] == 4 and sorted(oracle.calls) == [b"a", b"b", b"winner"]
    assert ev.counters.shared_waits == 2
    with Evaluator(CountingOracle(), jobs=2, cache=VerdictCache(tmp_path, {})) as again:
        assert again.first_interesting([b"a", b"winner"])[0] == 1
        assert again.counters.tests == 0 and again.counters.cache_hits == 2


@needs_clang22
def test_a_changed_header_changes_the_key(tmp_path):
    (tmp_path / "inc").mkdir()
    header = tmp_path / "inc" / "h.h"
    header.write_text("#define SCALE 2.0f\n")
    src = b'#include <hip/hip_runtime.h>\n#include "h.h"\n__global__ void k(float* p) { p[0] = SCALE; }\n'
    (tmp_path / "k.hip").write_bytes(src)
    flags = ["-I", str(tmp_path / "inc")]

    def identity():
        o = SpillSetup("k.hip", flags, predicate="lto.instructions > 0", cwd=tmp_path)
        return o.resolve(src).identity()

    before = identity()
    assert identity() == before
    header.write_text("#define SCALE 3.0f\n")
    assert identity() != before


def _evaluate_in_another_process(cache_dir, script, tmp, content, out):
    from interestingness.oracle.script import ScriptOracle

    oracle = ScriptOracle.create(script, "c.txt", tmp_root=tmp)
    with Evaluator(oracle, cache=VerdictCache(cache_dir, oracle.identity())) as ev:
        verdict = ev.test(content)
    out.put((verdict.interesting, ev.counters.tests, ev.counters.shared_waits))


def test_a_test_in_flight_in_another_run_is_awaited_not_repeated(tmp_path, script):
    """Two runs ask for the same key at once: one evaluates it, the other waits for its verdict."""
    import multiprocessing

    calls = tmp_path / "calls"
    test = script(f"echo run >> {calls}\nsleep 1\ngrep -q keep c.txt\n")
    ctx = multiprocessing.get_context("spawn")
    out = ctx.Queue()
    runs = [ctx.Process(target=_evaluate_in_another_process, args=(tmp_path / "cache", test, tmp_path, b"keep", out))
            for _ in range(2)]
    for r in runs:
        r.start()
    results = sorted(out.get(timeout=60) for _ in runs)
    for r in runs:
        r.join()
    assert calls.read_text() == "run\n"  # one evaluation
    assert results == [(True, 0, 1), (True, 1, 0)]  # one producer, one shared wait


def test_a_claim_of_a_dead_run_is_taken_over(tmp_path):
    cache = VerdictCache(tmp_path, {})
    cache._db.execute("INSERT INTO claims VALUES (?, ?, ?, ?, ?)",  # what a SIGKILLed run leaves
                      (cache._digest(cache._prefix + b"x"), cache._prefix + b"x", reducer_cache._HOST, 2**22 + 1, 0.0))
    assert cache.wait(b"x", stale_after=3600) is None  # its owner is gone: nothing to wait for
    assert cache.claim(b"x", stale_after=3600)
    other = VerdictCache(tmp_path, {})
    other._db.execute("UPDATE claims SET pid = 1")  # a live owner (init) whose claim is recent
    assert not other.claim(b"x", stale_after=3600) and other.claim(b"x", stale_after=0)
