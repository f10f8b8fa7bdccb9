"""What a pass is: an enumerator of items. It never tests, schedules or chunks anything."""
from __future__ import annotations

from ..text.edits import Item
from ..text.source import Source


class Pass:
    """Proposes reductions of one kind as a list of items in source order.

    The engine tries chunks of consecutive items, biggest first (ddmin; from the pass's second
    run on, from twice the largest chunk its last run took, unless `whole_first`), and
    re-enumerates after each accepted change. Hierarchical passes (HDD) use levels: level k
    holds the items at depth k, so outer structure is reduced before what is inside it.

    A pass has a `name` (what schedules, `--passes` and `--skip-passes` call it) and a one-line
    `summary` (what `reduce passes` prints). A pass of one kind only sets both on its class; a
    class that makes several passes (`Balanced`, `Blank`) is given them by its constructor.
    """

    name: str = ""
    summary: str = ""
    needs_tree: bool = False
    max_chunk: int | None = None  # cap on chunk size, for passes whose big chunks never work
    # Every run begins with all items as one chunk, whatever the last run took: items that only
    # go together (a declaration and its unreached users), where a smaller chunk splits them.
    whole_first: bool = False
    # A pass with a measure of its own (`progress`) may propose candidates up to this fraction
    # larger than the file, plus `growth_bytes`, when they lower that measure.
    growth: float = 0.0
    growth_bytes: int = 0
    # Its items keep the code well-formed by construction: they change no token (comments,
    # blanks), or put a whole unit of the grammar where one was (a type for an alias's name, a
    # literal for a constant expression, the code clang prints for an instantiation, a
    # declaration deleted whole). Its candidates' parse errors differ from the file's only by
    # the parser's error recovery, so the engine's syntax pre-filter would only see that noise
    # and is not asked: on ck_tile's 1,891 parse errors, deleting comments moved the count
    # either way and kept candidates out; on its 30-minute result (51 errors) 7 of 12 alias
    # inlinings added one or two (`f(typename G<I>::type{})`, which tree-sitter cannot read),
    # so no chunk of them got past it and `aliases` took one alias a test.
    well_formed: bool = False
    # Its items stay what they were once others of them are kept: after an accepted chunk the
    # engine carries the rest over the kept edits instead of asking the pass again, until they
    # are used up. For passes whose enumeration is a compiler run (the footprint: most of a
    # minute on a real library's TU), each item an edit of its own text.
    carries_items: bool = False

    def __init__(self, name: str | None = None, summary: str | None = None):
        self.name = name or self.name
        self.summary = summary or self.summary
        if not self.name or not self.summary:
            raise TypeError(f"{type(self).__name__}: a pass needs a name and a one-line summary")

    def items(self, src: Source, level: int) -> list[Item] | None:
        """Items of `level`, or None when the pass has no such level."""
        return self.enumerate(src) if level == 0 else None

    def enumerate(self, src: Source) -> list[Item]:
        raise NotImplementedError

    def progresses(self, src: Source, candidate: bytes) -> bool:
        """Whether `candidate` (a chunk of items applied to `src`) is worth a test: smaller, or
        at most `growth` (and `growth_bytes`) larger and lower by the pass's own measure. Each step then lowers (the
        growing passes' measures, bytes) in lexicographic order, so no run cycles (notes/engine.md)."""
        if len(candidate) < len(src.text):
            return True
        if not self.growth or not self.within_growth(src.text, candidate):
            return False
        return self.progress(Source(candidate, src.language)) < self.progress(src)

    def within_growth(self, text: bytes, candidate: bytes, steps: int = 1) -> bool:
        """Whether `candidate` is no larger than `steps` steps could make `text`, each at most
        `growth` (and `growth_bytes`) larger than the text before it."""
        bound = float(len(text))
        for _ in range(steps):
            bound = bound * (1 + self.growth) + self.growth_bytes
        return len(candidate) <= bound

    def progress(self, src: Source) -> int:
        """The pass's own measure, which its items lower even when they grow the file (with
        `growth` > 0). No pass may raise it but one whose own measure ranks above it (`macros`
        may add templates, never a `#define`): that is what keeps the run from cycling."""
        raise NotImplementedError
