"""What a pass is: an enumerator of items. It never tests, schedules or chunks anything."""
from __future__ import annotations

from typing import ClassVar

from ..edits import Item
from ..source import Source


class Pass:
    """Proposes reductions of one kind as a list of items in source order.

    The engine tries chunks of consecutive items, biggest first (ddmin), and re-enumerates after
    each accepted change. Hierarchical passes (HDD) use rounds: round k holds the items at
    depth k, so outer structure is reduced before what is inside it.
    """

    name: ClassVar[str]
    needs_tree: ClassVar[bool] = False
    max_chunk: ClassVar[int | None] = None  # cap on chunk size, for passes whose big chunks never work

    def items(self, src: Source, round: int) -> list[Item] | None:
        """Items of `round`, or None when the pass has no such round."""
        return self.enumerate(src) if round == 0 else None

    def enumerate(self, src: Source) -> list[Item]:
        raise NotImplementedError
