"""Confirmations in batches: a refused batch is bisected to its first refused candidate, the run
goes back to the one before it, and the batch grows while confirmations pass."""
from reducer.engine.checkpoints import Checkpoints, Kept


def kept(n: int) -> Kept:
    return Kept([b"%d" % n], b"%d" % n)


def test_a_passing_chain_is_confirmed_through_its_newest_and_the_batch_doubles():
    cp, asked = Checkpoints(kept(0), limit=4), []
    sizes = []
    for n in range(1, 12):
        cp.keep(kept(n))
        if cp.due():
            sizes.append(len(cp.chain))
            assert cp.settle(lambda c: asked.append(c) or True) is None
    assert sizes == [1, 2, 4, 4] and asked == [b"1", b"3", b"7", b"11"]
    assert cp.confirmed.content == b"11" and not cp.chain


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
        cp.keep(kept(99))
        assert cp.due()  # after a refusal, the next kept candidate is confirmed at once
