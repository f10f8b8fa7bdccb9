"""Edits are byte-range replacements; a pass's item is a tuple of them (a parameter and its
call-site arguments are one item). Items compose by union, which is what makes ddmin chunks
of overlapping or nested items well defined."""
from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable
from typing import NamedTuple


class Edit(NamedTuple):
    start: int
    end: int
    replacement: bytes = b""


Item = tuple[Edit, ...]

_BLANKS = re.compile(rb"[ \t\r\n]*")
_OPENERS = b"([{<"
_CLOSERS = b")]}>;"


def apply(text: bytes, edits: Iterable[Edit]) -> bytes:
    """Apply edits in position order, then repair list separators where something was deleted.

    Identical edits count once (items compose by union: two items opening one class, or
    declaring one alias, make the same edit); insertions at one offset keep their order. A
    deletion overlapping earlier edits is merged with them; an edit inside an already-edited
    range is dropped (an outer edit wins over a nested one).
    """
    out = bytearray()
    junctions: list[int] = []
    pos = 0
    for start, end, replacement in applied(edits):
        out += text[pos:start]
        if not replacement and start < end:
            junctions.append(len(out))
        out += replacement
        pos = end
    out += text[pos:]
    run_start = len(out) + 1
    for j in reversed(junctions):
        if j < run_start:  # junctions in one run of blanks share one repair
            run_start = _repair_separator(out, j)
    return bytes(out)


def applied(edits: Iterable[Edit]) -> list[Edit]:
    """The edits `apply` makes, in order and disjoint: identical ones once, one inside an edited
    range dropped, a deletion overlapping earlier edits starting where they end."""
    out: list[Edit] = []
    pos = 0
    for start, end, replacement in sorted(dict.fromkeys(edits), key=lambda e: (e.start, -e.end)):
        if start < pos:
            if end <= pos or replacement:
                continue
            start = pos
        out.append(Edit(start, end, replacement))
        pos = end
    return out


def compatible(items: list[Item], rank: Callable[[int], tuple[int, ...]]) -> list[Item]:
    """The items, in their order, that compose by union as each applies alone: no edit of one
    overlaps a different edit of another, so `apply` drops none of them in any chunk. Where
    items clash, the one first by `rank` (of its index) stays; the others wait for the next
    enumeration, made on the text the kept ones leave. An item's edits inside another's
    deletion are what break a chunk: inlining `using B = Tuple<A>;` deletes B's line, A's
    rewrite of its use there is dropped, and B's uses get `Tuple<A>` with A gone."""
    taken: list[Edit] = []  # the kept items' edits, sorted and pairwise disjoint
    kept: set[int] = set()
    for i in sorted(range(len(items)), key=rank):
        edits = set(items[i])
        if any(_clashes(taken, e) for e in edits):
            continue
        for e in edits:
            k = bisect_left(taken, e)
            if k == len(taken) or taken[k] != e:
                taken.insert(k, e)
        kept.add(i)
    return [item for i, item in enumerate(items) if i in kept]


def layered(items: list[Item], rank: Callable[[int], tuple[int, ...]]) -> list[list[Item]]:
    """`items` in layers that each compose by union: the first is `compatible`'s choice, the next
    its choice among those left, and so on. For a pass whose items clash where the one kept may
    be refused (inlining `g` copies its body, calling `f`, while `f`'s own item inlines that call
    and deletes `f`): level k holds layer k, so a clashing item is not lost when the one chosen
    over it fails."""
    layers: list[list[Item]] = []
    left = list(range(len(items)))  # indices into `items` of those in no layer yet
    while left:
        layer = _compatible_among(items, left, rank)
        layers.append(layer)
        chosen = set(map(id, layer))
        left = [j for j in left if id(items[j]) not in chosen]
    return layers


def _compatible_among(items: list[Item], among: list[int], rank: Callable[[int], tuple[int, ...]]) -> list[Item]:
    return compatible([items[j] for j in among], lambda i: rank(among[i]))


def _clashes(taken: list[Edit], e: Edit) -> bool:
    """Whether `e` overlaps, or shares a start with, an edit of `taken` other than itself."""
    k = bisect_left(taken, e.start, key=lambda t: t.start)
    if k and taken[k - 1].end > e.start:
        return True
    while k < len(taken) and (taken[k].start < e.end or taken[k].start == e.start):
        if taken[k] != e:
            return True
        k += 1
    return False


def carried(items: Iterable[Item], kept: Iterable[Edit], before: bytes, after: bytes) -> list[Item]:
    """`items`, made on `before`, as they stand on `after`, the text `apply` made of `before` and
    the edits `kept` (those it made: `applied`): each edit moved by what the kept ones before it
    added or removed. An edit inside the part of a kept edit's range that its replacement copies
    (a condition folded to the branch it takes keeps that branch's text, and the conditions in
    it, kept in the same chunk or not) moves with the copy. An item with an edit otherwise
    touching a kept one (a kept item itself), or whose range no longer holds the same bytes, is
    left out; none is carried when `apply` repaired a separator (the lengths do not add up):
    the offsets would be guesses."""
    kept = applied(kept)
    starts, ends, shifts = [k.start for k in kept], [k.end for k in kept], [0]
    for k in kept:  # shifts[i]: what the first i kept edits added or removed
        shifts.append(shifts[-1] + len(k.replacement) - (k.end - k.start))
    if len(after) != len(before) + shifts[-1]:
        return []
    out = []
    for item in items:
        moved = []
        for e in item:
            before_e = bisect_right(ends, e.start)  # the kept edits ending at or before it
            # those that may touch it: from the two before it (an insertion and a deletion may
            # both end where it starts) to the last starting at or before its end
            touching = [j for j in range(max(0, before_e - 2), bisect_right(starts, e.end)) if _touches(kept[j], e)]
            if not touching:
                m = Edit(e.start + shifts[before_e], e.end + shifts[before_e], e.replacement)
            elif len(touching) == 1 and (at := _copied_to(kept[touching[0]], e, before)) is not None:
                at += shifts[touching[0]]
                m = Edit(at, at + e.end - e.start, e.replacement)
            else:
                break
            if after[m.start:m.end] != before[e.start:e.end]:
                break
            moved.append(m)
        else:
            out.append(tuple(moved))
    return out


def _copied_to(k: Edit, e: Edit, before: bytes) -> int | None:
    """Where `e`'s range is in what `k` made of `before` (taken as starting at k.start), when it
    lies inside the one place in k's range that k's replacement copies; else None."""
    if not k.replacement or not (k.start <= e.start and e.end <= k.end):
        return None
    span = before[k.start:k.end]
    at = span.find(k.replacement)
    if at < 0 or span.find(k.replacement, at + 1) >= 0:  # not a copy, or a copy of which place
        return None
    source = k.start + at
    if not (source <= e.start and e.end <= source + len(k.replacement)):
        return None
    return k.start + e.start - source


def _touches(a: Edit, b: Edit) -> bool:
    """Whether two edits overlap, or one inserts where the other starts or ends."""
    if a.start == a.end or b.start == b.end:
        return a.start <= b.end and b.start <= a.end
    return a.start < b.end and b.start < a.end


def _repair_separator(out: bytearray, j: int) -> int:
    """Deleting list elements leaves `f(a, )`, `f(, b)` or `f(a, , b)`: drop the stray comma.
    Stray separators are the classic failure of syntax-tree reducers; checking only at deletion
    points keeps every other comma of the file untouched. Returns where the blanks around j start."""
    left = j - 1
    while left >= 0 and out[left] in b" \t\r\n":
        left -= 1
    blanks = _BLANKS.match(out, j)
    assert blanks is not None  # (it matches the empty string too)
    right = blanks.end()
    if left < 0 or right >= len(out):
        return left + 1
    if out[left] == ord(",") and (out[right] in _CLOSERS or out[right] == ord(",")):
        del out[left]
    elif out[left] in _OPENERS and out[right] == ord(","):
        del out[right]
    return left + 1


def deletion(start: int, end: int) -> Item:
    return (Edit(start, end),)


def growth(edits: Iterable[Edit]) -> int:
    """The bytes non-overlapping `edits` add to the text (negative: they shrink it)."""
    return sum(len(e.replacement) - (e.end - e.start) for e in edits)


def line_span(text: bytes, start: int, end: int) -> tuple[int, int]:
    """Widen [start, end) to whole lines when nothing else shares them, so that deleting a
    statement does not leave an empty indented line behind."""
    line_start = text.rfind(b"\n", 0, start) + 1
    if text[line_start:start].strip():
        return start, end
    line_end = text.find(b"\n", end)
    line_end = len(text) if line_end < 0 else line_end + 1
    if text[end:line_end].strip():
        return start, end
    return line_start, line_end
