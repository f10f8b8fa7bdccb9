"""Property-based: random and malformed sources through the parser, every pass and the engine.
No exception; every candidate the oracle sees is a real edit that makes the file smaller."""
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from interestingness.base.verdict import NoConfirmation, Verdict
from reducer.engine.engine import Engine, Hooks
from reducer.engine.evaluate import Evaluator
from reducer.engine.schedule import Schedule
from reducer.passes import FIRST, LAST, MAIN, REGISTRY, resolve
from reducer.text.edits import apply
from reducer.text.source import Source

FRAGMENTS = [b"int ", b"x", b"y", b"(", b")", b"{", b"}", b"[", b"]", b"<", b">", b";", b",", b"=", b"1", b"0x1F",
             b"template ", b"typename T", b"__global__ ", b"__launch_bounds__(256, 2) ", b"<<<1, 2>>>", b"\n",
             b"\r\n", b"#include \"a.h\"\n", b"#define M(a) a\n", b"#pragma unroll\n", b"// c\n", b"/* c */",
             b"/* open", b"\"str", b"'c'", b"\"s\"", b"\\\n", b"\xef\xbb\xbf", b"\xff\xfe", b"\x00", b"\t", b" ",
             b"namespace n ", b"struct S ", b"return ", b"if (", b"for (;;) ", b"configs[3]", b"::", b"->", b"..."]

sources = st.one_of(
    st.binary(max_size=400),
    st.lists(st.sampled_from(FRAGMENTS), max_size=80).map(b"".join),
)
LANGUAGES = ("cuda", "cpp", "text")


class RandomOracle(NoConfirmation):
    """Interesting at random (seeded), recording what it was asked."""

    ignores_layout = False
    tree = None

    def __init__(self, seed: int):
        self.rng, self.asked = random.Random(seed), []
        self.best = lambda: None  # the engine's current best file

    def test(self, content: bytes) -> Verdict:
        best = self.best()
        self.asked.append(content)
        assert best is None or len(content) < len(best)  # a real edit, and no candidate grows the file
        return Verdict(self.rng.random() < 0.3)

    def identity(self):
        return {}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=sources, language=st.sampled_from(LANGUAGES))
def test_every_pass_enumerates_real_edits_without_error(text, language):
    src = Source(text, language)
    assert src.error_count >= 0 and isinstance(src.tokens, list)
    for p in REGISTRY.values():
        if p.needs_tree and src.tree is None:
            continue
        for level in range(3):
            items = p.items(src, level)
            if items is None:
                break
            for item in items[:40]:
                assert all(0 <= e.start <= e.end <= len(text) for e in item), p.name
                apply(text, item)  # composes without error


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=sources, language=st.sampled_from(LANGUAGES))
def test_every_pass_enumerates_the_same_items_from_equal_texts(text, language):
    """Replay, resume and -j independence assume `items` is a function of the text and the level
    alone (llvm-reduce asserts as much in debug builds): two parses of equal texts, any order."""
    first, second = Source(text, language), Source(bytes(text), language)
    for p in REGISTRY.values():
        if p.needs_tree and first.tree is None:
            continue
        for level in range(6):
            items = p.items(first, level)
            assert items == p.items(second, level) == p.items(first, level), (p.name, level)
            if items is None:
                break
    for level in reversed(range(6)):  # levels asked in another order than the engine's
        for p in REGISTRY.values():
            if not (p.needs_tree and first.tree is None):
                assert p.items(Source(text, language), level) == p.items(second, level), (p.name, level)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=sources, language=st.sampled_from(LANGUAGES), seed=st.integers(0, 2**16))
def test_the_engine_only_ever_tests_smaller_files(text, language, seed):
    oracle = RandomOracle(seed)
    sizes = []
    schedule = Schedule(first=resolve(list(FIRST)), main=resolve(list(MAIN)), last=resolve(list(LAST)))
    engine = Engine(Evaluator(oracle), language, schedule,
                    hooks=Hooks(on_accept=lambda content: sizes.append(len(content))))
    oracle.best = lambda: engine.best.text if engine.best is not None else None
    result = engine.reduce(text)
    assert len(result) <= len(text)
    assert sizes == sorted(sizes, reverse=True) and len(set(sizes)) == len(sizes)  # strictly shrinking
    assert all(content != text for content in oracle.asked)


def test_every_pass_enumerates_the_same_items_from_equal_real_files():
    from conftest import ROOT

    for path, language in (("corpora/cxx_diag/case.cpp", "cpp"), ("corpora/hip_syntax/kernel.hip", "cuda")):
        text = (ROOT / path).read_bytes()
        first, second = Source(text, language), Source(bytes(text), language)
        for p in REGISTRY.values():
            for level in range(8):
                items = p.items(first, level)
                assert items == p.items(second, level), (path, p.name, level)
                if items is None:
                    break
