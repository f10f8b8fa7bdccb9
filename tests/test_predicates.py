from __future__ import annotations

import math
import pickle

import pytest

import interestingness.measure.predicates as predicates
from interestingness.measure.metrics import METRIC_NAMES
from interestingness.measure.predicates import (
    BUDGET_CLAUSE,
    CALL_CLAUSE,
    DEFAULT_EFFECT,
    DEFAULT_PREDICATE,
    SIZE_CLAUSE,
    Predicate,
    PredicateError,
)

SPILLS = {"vgpr_spills": 40, "spill_ops": 100, "mfma": 64, "scratch_ops": 100, "scratch_size": 160,
          "vgpr_total": 256, "instructions": 1242, "occupancy": 2, "max_flat_workgroup_size": 256, "calls": 0}
CLEAN = {"vgpr_spills": 0, "spill_ops": 0, "mfma": 64, "scratch_ops": 0, "scratch_size": 0, "vgpr_total": 243,
         "instructions": 900, "occupancy": 2, "max_flat_workgroup_size": 256, "calls": 0}
ORIGINAL = {"lto": SPILLS, "nolto": CLEAN}


def test_default_is_in_the_language_and_documented_exactly():
    p = Predicate(DEFAULT_PREDICATE)
    assert set(p.names) == {"lto.vgpr_spills", "lto.spill_ops", "nolto.spill_ops", "nolto.vgpr_spills",
                            "lto.scratch_size", "nolto.scratch_size", "lto.mfma", "nolto.mfma", "nolto.vgpr_total",
                            "lto.instructions", "lto.max_flat_workgroup_size", "lto.occupancy", "lto.calls"}
    assert p.original_names == ("lto.calls", "lto.instructions", "lto.max_flat_workgroup_size", "lto.occupancy",
                                "nolto.vgpr_total")
    assert " ".join(DEFAULT_PREDICATE.split()) in " ".join(predicates.__doc__.split())


def test_explain_leaves_the_size_clause_out():
    """`reduce explain` compares passes, not sizes or budgets: its default is the effect alone."""
    assert DEFAULT_PREDICATE == f"{DEFAULT_EFFECT} and {BUDGET_CLAUSE} and {CALL_CLAUSE} and {SIZE_CLAUSE}"
    assert "instructions" not in DEFAULT_EFFECT and "calls" not in DEFAULT_EFFECT
    assert Predicate(DEFAULT_EFFECT).original_names == ("nolto.vgpr_total",)


def test_the_default_keeps_a_call_the_originals_lto_build_makes():
    """Full LTO leaving a function a call (hipconv's forward kernel: all its spills in the callee)
    is part of the bug: a result whose LTO build inlines it is refused; an original that calls
    nothing asks nothing of the calls."""
    calling = {"lto": {**SPILLS, "calls": 1}, "nolto": CLEAN}
    p = Predicate(DEFAULT_PREDICATE).bind(calling)
    assert p.evaluate({**SPILLS, "calls": 1}, CLEAN) is True
    assert p.evaluate({**SPILLS, "calls": 3}, CLEAN) is True
    assert p.evaluate(SPILLS, CLEAN) is False
    assert p.explain(SPILLS, CLEAN) == "lto.calls > 0 or orig.lto.calls == 0 [lto.calls=0, orig.lto.calls=1]"
    plain = Predicate(DEFAULT_PREDICATE).bind(ORIGINAL)
    assert plain.evaluate(SPILLS, CLEAN) is True and plain.evaluate({**SPILLS, "calls": 1}, CLEAN) is True


def test_default_semantics():
    p = Predicate(DEFAULT_PREDICATE).bind(ORIGINAL)
    assert p.evaluate(SPILLS, CLEAN) is True
    assert p.evaluate(SPILLS, SPILLS) is False  # both spill
    assert p.evaluate(CLEAN, CLEAN) is False
    assert p.evaluate(SPILLS, {**CLEAN, "spill_ops": 25, "vgpr_spills": 10}) is True  # a quarter
    assert p.evaluate(SPILLS, {**CLEAN, "spill_ops": 26}) is False
    assert p.evaluate(SPILLS, {**CLEAN, "mfma": 32}) is False  # different matrix work
    assert p.evaluate({**SPILLS, "mfma": 0}, {**CLEAN, "mfma": 0}) is False  # no matrix work left
    # private arrays in scratch without register spills are another effect
    assert p.evaluate({**CLEAN, "scratch_ops": 50}, CLEAN) is False
    # a no-LTO build that parks private arrays in scratch has drifted away from the effect
    assert p.evaluate(SPILLS, {**CLEAN, "scratch_size": 41}) is False
    assert p.evaluate(SPILLS, {**CLEAN, "scratch_size": 40}) is True
    # the no-LTO side keeps the original's headroom: no more registers than its 243
    assert p.evaluate(SPILLS, {**CLEAN, "vgpr_total": 244}) is False
    assert p.evaluate(SPILLS, {**CLEAN, "vgpr_total": 200}) is True
    # the target kernel's LTO code is no larger than the original's 1242 instructions
    assert p.evaluate({**SPILLS, "instructions": 1243}, CLEAN) is False
    assert p.evaluate({**SPILLS, "instructions": 796}, CLEAN) is True
    assert p.evaluate({**SPILLS, "instructions": 1243}, None) is False  # the LTO side alone decides
    # the LTO side spills against the original's budget: its launch bound and occupancy (issue 43)
    assert p.evaluate({**SPILLS, "max_flat_workgroup_size": 1024, "occupancy": 4, "vgpr_total": 128}, CLEAN) is False
    assert p.evaluate({**SPILLS, "occupancy": 1}, CLEAN) is False
    assert p.evaluate({**SPILLS, "occupancy": None}, CLEAN) is None  # unknown, which the oracle counts as false


def test_the_originals_figures():
    """orig.SIDE.METRIC reads the figures bound at setup; unbound, it is unknown (so false in the end)."""
    p = Predicate("nolto.vgpr_total <= orig.nolto.vgpr_total and lto.vgpr_spills * 2 >= orig.lto.vgpr_spills")
    assert p.names == ("lto.vgpr_spills", "nolto.vgpr_total")
    assert p.original_names == ("lto.vgpr_spills", "nolto.vgpr_total")
    assert p.evaluate(SPILLS, CLEAN) is None
    bound = p.bind(ORIGINAL)
    assert bound.original == {"lto.vgpr_spills": 40, "nolto.vgpr_total": 243}
    assert bound.evaluate(SPILLS, CLEAN) is True
    assert bound.evaluate({**SPILLS, "vgpr_spills": 19}, CLEAN) is False
    assert "orig.lto.vgpr_spills=40" in bound.explain({**SPILLS, "vgpr_spills": 19}, CLEAN)
    assert "orig.nolto.vgpr_total (243)" in bound.shown()
    assert "(nolto_vgpr_total <= 243)" in bound.awk() and "orig" not in bound.awk()
    assert "(nolto_vgpr_total <= nolto_vgpr_total)" in p.awk()  # unbound: the file is its own original
    assert pickle.loads(pickle.dumps(bound)).original == bound.original
    assert bound.canonical == p.canonical  # the figures are the oracle's identity, not the text's


@pytest.mark.parametrize("text", [
    "lto.spill_ops > 0",
    "(lto.spill_ops + 1) * 2 >= nolto.spill_ops / 3 - 1",
    "not lto.spill_ops == 0 or nolto.mfma != 4",
    "0 < lto.vgpr <= 256",
    "-lto.sgpr < 1.5e3",
])
def test_parses(text):
    Predicate(text)


@pytest.mark.parametrize("text, fragment", [
    ("__import__('os').system('true')", "not allowed"),
    ("lto.spill_ops.real > 0", "not allowed"),  # attribute chain
    ("lto.__class__", "unknown metric"),
    ("abs(lto.spill_ops) > 0", "not allowed"),  # call
    ("lto.bogus > 0", "unknown metric"),
    ("host.spill_ops > 0", "not allowed"),
    ("spill_ops > 0", "not allowed"),  # bare name
    ("lto.spill_ops ** 2 > 0", "not allowed"),
    ("lto.spill_ops in [1, 2]", "not allowed"),
    ("'a' < 'b'", "not allowed"),
    ("True", "not allowed"),
    ("lto.spill_ops if 1 else 0", "not allowed"),
    ("[x for x in ()]", "not allowed"),
    ("lambda: 0", "not allowed"),
    ("lto.spill_ops > 0; 1", "syntax error"),
    ("orig.spill_ops > 0", "not allowed"),
    ("orig.lto.bogus > 0", "unknown metric"),
    ("lto.orig.spill_ops > 0", "not allowed"),
    ("orig.orig.lto.mfma > 0", "not allowed"),
    ("lto.spill_ops >", "syntax error"),
])
def test_rejects(text, fragment):
    with pytest.raises(PredicateError, match=fragment):
        Predicate(text)


def test_unknown_metric_message_lists_known_ones():
    with pytest.raises(PredicateError) as e:
        Predicate("nolto.spills > 0")
    assert all(name in str(e.value) for name in METRIC_NAMES)


def test_three_valued_laziness():
    p = Predicate("lto.spill_ops > 0 and nolto.spill_ops == 0")
    assert p.evaluate(CLEAN, None) is False  # decided without the no-LTO side
    assert p.evaluate(SPILLS, None) is None  # needs it
    assert p.evaluate(SPILLS, CLEAN) is True
    q = Predicate("lto.spill_ops > 0 or nolto.spill_ops > 0")
    assert q.evaluate(SPILLS, None) is True
    assert q.evaluate(CLEAN, None) is None
    assert Predicate("not nolto.mfma > 0").evaluate(SPILLS, None) is None
    assert Predicate("nolto.mfma + 1 > 0").evaluate(SPILLS, None) is None
    assert Predicate("0 < nolto.mfma < lto.mfma").evaluate(SPILLS, None) is None
    assert Predicate("5 < lto.mfma < nolto.mfma").evaluate({"mfma": 1}, None) is False
    # a metric the asm could not determine is unknown too
    assert Predicate("lto.occupancy > 2").evaluate({"occupancy": None}, CLEAN) is None


def test_division_is_ieee():
    assert Predicate("lto.spill_ops / nolto.spill_ops > 4").evaluate(SPILLS, CLEAN) is True
    assert Predicate("lto.spill_ops / nolto.spill_ops > 4").evaluate(CLEAN, CLEAN) is False  # nan
    assert math.isinf(predicates._eval(Predicate("1 / nolto.spill_ops")._tree, {"nolto": CLEAN}))


def test_explain_names_the_failing_clause():
    p = Predicate(DEFAULT_PREDICATE).bind(ORIGINAL)
    assert p.explain(CLEAN, CLEAN) == "lto.vgpr_spills > 0 [lto.vgpr_spills=0]"
    assert p.explain(SPILLS, SPILLS).startswith("nolto.spill_ops * 4 <= lto.spill_ops")
    assert p.explain({**SPILLS, "instructions": 3984}, CLEAN) == (
        "lto.instructions <= orig.lto.instructions [lto.instructions=3984, orig.lto.instructions=1242]")


def test_explain_names_the_false_clause_not_an_unknown_one():
    """The oracle skips the no-LTO compile once the LTO side decides: the clauses over the no-LTO
    side are unknown then, and the reason is the false one after them."""
    p = Predicate(DEFAULT_PREDICATE).bind(ORIGINAL)
    grown = {**SPILLS, "instructions": 3984}
    assert p.evaluate(grown, None) is False
    assert p.explain(grown, None) == (
        "lto.instructions <= orig.lto.instructions [lto.instructions=3984, orig.lto.instructions=1242]")
    assert p.explain({**SPILLS, "mfma": 0}, None) == "lto.mfma > 0 [lto.mfma=0]"
    # undecided (nothing false): the first unknown clause, with the values it lacks
    assert p.explain(SPILLS, None).startswith("nolto.spill_ops * 4 <= lto.spill_ops [")
    assert "nolto.spill_ops=None" in p.explain(SPILLS, None)
    assert p.explain(SPILLS, CLEAN) == "true"
    # a clause that is false is named before one left unknown by the side not compiled
    assert p.bind(ORIGINAL).explain({**SPILLS, "occupancy": 4}, None) == \
        "lto.occupancy == orig.lto.occupancy [lto.occupancy=4, orig.lto.occupancy=2]"


def test_pickles_as_source():
    p = pickle.loads(pickle.dumps(Predicate(DEFAULT_PREDICATE).bind(ORIGINAL)))
    assert p.source == DEFAULT_PREDICATE and p.evaluate(SPILLS, CLEAN) is True
