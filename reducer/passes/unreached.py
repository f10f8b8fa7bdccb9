"""Delete what the kept kernels do not reach, as the compiler says (the footprint, text/footprint.py):
every unreached declaration of the file, every explicit instantiation that makes no kept kernel
exist (a launcher whose kernel `plain` made plain), and every `if constexpr` branch that no
instantiation takes, emptied.

The two go together: a template's branch that no instantiation takes is still parsed, and the
names it uses without depending on the template must stay declared; the footprint calls a
function that only such a branch calls unreached, so the branch goes with it. Every item is
likely to pass and the first chunk is all of them: on library code one test removes most of
the file (issue 41). Every run begins so (`whole_first`), even after a run that took only small
chunks: a smaller first chunk splits a declaration from the unreached ones that name it (an enum
from the template parameter typed by it), and does not compile. When the oracle refuses the
whole, ddmin halves the set, never one declaration at a time first. Without a compiler to ask
(a script oracle), the pass proposes nothing.
"""
from __future__ import annotations

from ..text.edits import Edit, Item, deletion, line_span
from ..text.source import Source
from .base import Pass


class Unreached(Pass):
    name = "unreached"
    well_formed = True
    summary = ("delete the declarations the kept kernels do not reach and the branches no instantiation takes "
               "(clang plugin)")
    whole_first = True
    carries_items = True  # its enumeration asks the footprint

    def enumerate(self, src: Source) -> list[Item]:
        fp = src.values.footprint(src.text) if src.values is not None else None
        if fp is None:
            return []
        items = [deletion(*line_span(src.text, b, e))
                 for b, e in [*((e.begin, e.end) for e in fp.unreached()), *fp.idle]]
        for c in fp.discarded():
            branch = c.orelse if c.value else c.then
            if branch is not None and src.text[branch[0]:branch[1]].strip() != b"{}":
                items.append((Edit(branch[0], branch[1], b"{}"),))
        return sorted(items)
