"""Confirmations in batches: a refused batch is bisected to its first refused candidate, the run
goes back to the one before it, and the batch grows while confirmations pass, as far as the run's
own counts say it pays."""
from reducer.engine.checkpoints import Checkpoints, Kept


def kept(n: int) -> Kept:
    return Kept([b"%d" % n], b"%d" % n)


def test_a_passing_chain_is_confirmed_through_its_newest_and_the_batch_grows_within_its_limit():
    cp, asked = Checkpoints(kept(0), limit=4, confirm_cost=3.0), []
    sizes = []
    for n in range(1, 30):
        cp.keep(kept(n), work=2)
        if cp.due():
            sizes.append(len(cp.chain))
            assert cp.settle(lambda c: asked.append(c) or True) is None
    assert sizes[0] == 1 and sizes == sorted(sizes) and sizes[-1] == 4
    cp.settle(lambda c: asked.append(c) or True)  # the end of a phase confirms what is left
    assert asked[-1] == cp.confirmed.content == b"29" and not cp.chain
    cheap = Checkpoints(kept(0), limit=4, confirm_cost=0.5)  # a confirmation cheaper than a test
    for n in range(1, 30):
        cheap.keep(kept(n), work=20)
        if cheap.due():
            assert len(cheap.chain) == 1
            cheap.settle(lambda c: True)


def test_a_refused_chain_goes_back_to_the_newest_candidate_before_the_first_refused_one():
    for first_bad in range(1, 9):
        cp = Checkpoints(kept(0), limit=8)
        for n in range(1, 9):
            cp.keep(kept(n))
        asked = []
        back = cp.settle(lambda c: asked.append(c) or int(c) < first_bad)
        assert back.content == b"%d" % (first_bad - 1) and cp.confirmed is back and not cp.chain
        assert len(asked) <= 1 + 3  # the newest, then a bisection of 8
        assert cp.refused == 1 and cp.due() is False
        # what goes back is known, so its passes are not paid for it
        assert [k.content for k in cp.dropped] == [b"%d" % n for n in range(first_bad, 9)]
        cp.keep(kept(99))
        assert cp.due()  # after a refusal, the next kept candidate is confirmed at once
