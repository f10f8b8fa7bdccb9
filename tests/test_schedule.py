"""The schedule's rules, asked directly: which lists, which sweep comes next, what runs between
two passes of a sweep and within one. tests/test_engine.py runs them through the engine."""
import pytest

from reducer import passes
from reducer.engine.schedule import Schedule
from reducer.run.options import RunConfig


def names(ps):
    return [p.name for p in ps]


def test_the_lists_come_from_the_registry_the_options_and_the_skips():
    default = Schedule.from_registry()
    assert [names(default.first), names(default.main), names(default.replace), names(default.last)] == [
        list(passes.FIRST), list(passes.MAIN), list(passes.REPLACE), list(passes.LAST)]
    assert names(default.revisit) == list(passes.REVISIT) and names(default.coarse) == list(passes.COARSE)
    # --passes: the main list alone, with --rename at its end; the revisit and coarse passes it keeps
    chosen = Schedule.from_registry(["lines", "unused", "tree-delete", "instantiate"], rename=True,
                                    skip=["instantiate"])
    assert [chosen.first, names(chosen.main), chosen.replace, chosen.last] == [
        [], ["lines", "unused", "tree-delete", "rename"], [], []]  # --passes: no replacement stage
    assert names(chosen.revisit) == ["unused"] and names(chosen.coarse) == ["unused", "tree-delete"]
    skipped = Schedule.from_registry(skip=["blank", "tree-delete", "replace-types"])
    assert "blank" not in names(skipped.first + skipped.main) and names(skipped.coarse) == list(passes.COARSE[:-1])
    assert names(skipped.replace) == [n for n in passes.REPLACE if n != "replace-types"]
    assert Schedule.from_registry(replacements=False).replace == []
    # the stage follows the oracle: scripts have it, the built-in oracle only when asked
    script, builtin = (RunConfig(file="f", output="o", cwd="/", script=s) for s in ("t.sh", None))
    assert (script.replaces, builtin.replaces) == (True, False)
    assert RunConfig(file="f", output="o", cwd="/", replacements=True).replaces
    with pytest.raises(KeyError, match="unknown pass"):
        Schedule.from_registry(skip=["no-such-pass"])


def test_sweeps_of_the_main_list_go_on_until_one_removes_nothing():
    a, b, c = passes.resolve(["lines", "tokens", "blank"])
    plain = Schedule(main=[a, b, c])
    assert plain.next_sweep(plain.main, [b]) is plain.main
    assert plain.next_sweep(plain.main, []) == []
    adaptive = Schedule(main=[a, b, c], adaptive=True)
    assert adaptive.next_sweep(adaptive.main, [a, c]) == [a, c]
    assert adaptive.next_sweep([a, c], [c]) == [c]
    assert adaptive.next_sweep([c], []) is adaptive.main  # narrowed to nothing: everything again
    assert adaptive.next_sweep(adaptive.main, []) == []
    assert adaptive.next_sweep([a, b, c], []) is adaptive.main  # narrowed, though to every pass


def test_the_replacement_stage_comes_at_the_fixpoint_and_sends_the_run_back_to_the_main_sweeps():
    a, b, r1, r2 = passes.resolve(["lines", "tokens", "replace-calls", "replace-subtrees"])
    s = Schedule(main=[a, b], replace=[r1, r2])
    assert s.next_sweep(s.main, [a]) is s.main            # the main sweeps go on while they remove
    assert s.next_sweep(s.main, []) is s.replace          # their fixpoint: the stage
    assert s.next_sweep(s.replace, [r2]) is s.main        # a replacement accepted: deletion again
    assert s.next_sweep(s.replace, []) == []              # the stage took nothing: done
    adaptive = Schedule(main=[a, b], replace=[r1, r2], adaptive=True)
    assert adaptive.next_sweep(adaptive.main, [a]) == [a]
    assert adaptive.next_sweep([a], []) is adaptive.main
    assert adaptive.next_sweep(adaptive.main, []) is adaptive.replace
    assert adaptive.next_sweep(adaptive.replace, [r1]) is adaptive.main  # all of the main list, not [r1]
    none = Schedule(main=[a, b])                          # no stage (--passes): the fixpoint ends the sweeps
    assert none.next_sweep(none.main, []) == []


def test_between_two_passes_the_coarse_head_after_a_tenth_else_the_revisit_passes_after_any_change():
    head, fold, fine = passes.resolve(["conditionals", "unused", "lines"])
    s = Schedule(main=[head, fold, fine], revisit=[fold], coarse=[head])
    s.begin(b"x" * 100, sweeping=True)
    assert s.between(head, b"x" * 100) == [] and s.between(fold, b"x" * 100) == []
    assert s.between(fine, b"x" * 100) == []                 # unchanged since `fold` ran
    assert s.between(fine, b"x" * 95) == [fold]              # changed
    assert s.between(fold, b"x" * 95) == []
    assert s.between(fine, b"x" * 90, [fine]) == [head]      # a tenth less than when `head` ended
    assert s.between(head, b"x" * 90, [fine]) == []
    assert s.between(fine, b"x" * 90, [fine]) == [fold]      # the coarse head did not run `fold`


def test_the_coarse_head_does_not_run_again_when_only_the_sweeps_tail_is_left():
    """The next sweep starts with the coarse head: a rerun just before it, with only the tail
    (`blank`) or nothing left of the sweep, would repeat its tests on a text the tail changed."""
    default = Schedule.from_registry()
    assert names(default.tail) == ["blank"] == [passes.MAIN[-1]]
    assert Schedule.from_registry(skip=["blank"]).tail == []
    assert names(Schedule.from_registry(["lines", "blank"]).tail) == ["blank"]
    assert Schedule.from_registry(["blank", "lines"]).tail == []
    head, fine, last, tail = passes.resolve(["conditionals", "lines", "tokens", "blank"])
    s = Schedule(main=[head, fine, last, tail], coarse=[head], tail=[tail])
    s.begin(b"x" * 100, sweeping=True)
    assert s.between(head, b"x" * 100, [fine, last, tail]) == []
    assert s.between(fine, b"x" * 90, [last, tail]) == [head]  # a fine pass is left: run it again
    assert s.between(head, b"x" * 90, [last, tail]) == []
    assert s.between(last, b"x" * 81, [tail]) == []          # a tenth less, but only the tail is left
    assert s.between(tail, b"x" * 80, []) == []              # nothing left: the next sweep starts with it
    assert s.between(last, b"x" * 81, [last, tail]) == [head]  # the same, were a fine pass left
    s.begin(b"x" * 100, sweeping=True)                       # a sweep whose `tokens` rests: [head, fine, tail]
    assert s.between(fine, b"x" * 50, [tail]) == []
    no_tail = Schedule(main=[head, fine, tail], coarse=[head])  # --passes without blank last
    no_tail.begin(b"x" * 100, sweeping=True)
    assert no_tail.between(fine, b"x" * 50, [tail]) == [head] and no_tail.between(tail, b"x" * 40, []) == []


def test_within_a_pass_the_revisit_passes_run_once_the_part_has_shrunk_by_a_fifth():
    fold, fine = passes.resolve(["unused", "lines"])
    s = Schedule(main=[fold, fine], revisit=[fold])
    s.begin(b"x" * 100, sweeping=True)
    assert s.within(fine, b"x" * 81) == [] and s.within(fine, b"x" * 80) == [fold]
    s.revisited(b"x" * 80)
    assert s.within(fine, b"x" * 65) == [] and s.within(fine, b"x" * 64) == [fold]
    assert s.within(fold, b"x") == []                        # never within one of them
    s.begin(b"x" * 100, sweeping=False)                      # the first and last passes: never
    assert s.within(fine, b"x") == []


def test_a_pass_that_paid_less_than_a_byte_per_rest_rate_candidates_rests_one_sweep():
    a, b, c, r = passes.resolve(["lines", "tokens", "blank", "replace-calls"])
    s = Schedule(main=[a, b, c], replace=[r], rest_rate=32)
    # `b` bought 3 bytes for 100 candidates (less than one per 32), `c` nothing for nothing
    assert s.next_sweep(s.main, [a, b], {"lines": (500, 40), "tokens": (3, 100), "blank": (0, 0)}) == [a, c]
    assert names(s.resting) == ["tokens"]
    # it never rests twice in a row, whatever its last sweep bought; `a` bought nothing this time
    assert s.next_sweep([a, c], [c], {"lines": (0, 30), "blank": (10, 1)}) == [b, c]
    assert names(s.resting) == ["lines"]
    assert s.next_sweep([b, c], [b], {"tokens": (100, 100), "blank": (0, 5)}) == [a, b]  # `a` is back
    # a sweep that left passes out and removed nothing: all of the main list, none resting, since
    # the sweeps end only when every main pass has had its try on the final file
    assert s.next_sweep([a, b], [], {"lines": (0, 30), "tokens": (0, 90)}) is s.main and s.resting == []
    assert s.next_sweep(s.main, [c], {"lines": (0, 30), "tokens": (0, 90), "blank": (2, 5)}) == [c]
    assert s.next_sweep([c], [], {"blank": (0, 5)}) is s.main
    assert s.next_sweep(s.main, [], {n: (0, 9) for n in ("lines", "tokens", "blank")}) is s.replace
    # a replacement accepted: main sweeps again; were every main pass to rest, none does
    assert s.next_sweep(s.replace, [r], {"replace-calls": (7, 4)}) is s.main and s.resting == []
    assert s.next_sweep(s.main, [], {n: (0, 9) for n in ("lines", "tokens", "blank")}) is s.replace
    assert s.next_sweep(s.replace, [], {"replace-calls": (0, 4)}) == []


def test_no_pass_rests_with_a_rest_rate_of_0_or_in_adaptive_sweeps():
    a, b = passes.resolve(["lines", "tokens"])
    paid = {"lines": (0, 100), "tokens": (5, 10)}
    off = Schedule(main=[a, b], rest_rate=0)
    assert off.next_sweep(off.main, [b], paid) is off.main and off.resting == []
    adaptive = Schedule(main=[a, b], adaptive=True)
    assert adaptive.next_sweep(adaptive.main, [b], paid) == [b]
    assert adaptive.next_sweep([b], [], {"tokens": (0, 10)}) is adaptive.main and adaptive.resting == []
    assert Schedule(main=[a, b]).rest_rate == 32  # on by default


def test_a_revisit_pass_that_changed_the_part_runs_the_revisit_passes_before_it_again():
    """`plain` makes the kernel plain: its template is unreached now, not a sweep later, even
    inside the coarse head (which otherwise runs nothing between its passes)."""
    unreached, instantiate, plain, unused, fine = passes.resolve(["unreached", "instantiate", "plain", "unused", "lines"])
    s = Schedule(main=[unreached, instantiate, plain, unused, fine], revisit=[unreached, instantiate, plain, unused],
                 coarse=[unreached, instantiate, plain, unused])
    s.begin(b"x" * 100, sweeping=True)
    assert s.between(unreached, b"x" * 90, [instantiate, plain, unused, fine]) == []   # none before it
    assert s.between(instantiate, b"x" * 90, [plain, unused, fine]) == []   # did not change the part
    assert s.between(plain, b"x" * 80, [unused, fine]) == [unreached, instantiate]
    assert s.between(unreached, b"x" * 60, [unused, fine]) == []
    assert s.between(instantiate, b"x" * 50, [unused, fine]) == [unreached]
    assert s.between(unreached, b"x" * 50, [unused, fine]) == []
    assert s.between(unused, b"x" * 50, [fine]) == []   # unchanged
