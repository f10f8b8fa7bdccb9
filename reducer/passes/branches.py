"""Delete a branch of the dispatch (on a data type, a layout, a direction, whether the K loop has
a main part) through which a library instantiates many kernels and helpers where the bug needs
one. Few items, so it is cheap to try before the deletion of everything else; `tree-delete`
would reach them only after every shallower node of the file.

Level 0 deletes a `case` of a switch or the `else` of an if: the taken branch stays. Level 1
deletes the other side, for the ifs that dispatch (their `then` branch names a template's
instance or launches a kernel): `if (c) A else B` becomes `B`, and `if (c) A` without an else
goes. The kernel a run targets may be in either branch (composable_kernel launches the one
without the main K loop in the `else`), and which one survives is the verdicts' choice.

With a compiler to ask (the footprint), the `else` of an `if constexpr` is left to `folded`: the
compiler says which branches no instantiation takes, and those some instantiation takes are
mostly a constexpr function's `else { return x; }`, whose deletion does not compile (on
composable_kernel 15 of 19 level-0 items, most of the pass's 73% of candidates that did not).
`tree-delete` still tries each of them later."""
from __future__ import annotations

from tree_sitter import Node

from ..text.edits import Edit, Item, deletion, line_span
from ..text.source import Source, walk
from .base import Pass

_BRANCHES = frozenset({"case_statement", "else_clause"})
# what a dispatching branch holds: a use of a template with its arguments, a kernel launch
_INSTANCES = frozenset({"template_function", "template_type", "template_method", "kernel_call_syntax"})


class Branches(Pass):
    name = "branches"
    well_formed = True
    summary = "delete cases of a switch and either branch of an if that dispatches to other instantiations, first"
    needs_tree = True
    carries_items = True  # its enumeration asks the footprint

    def items(self, src: Source, level: int) -> list[Item] | None:
        if level > 1:
            return None
        items, inside = [], -1  # end of the branch last taken: one inside it goes with it
        informed: bool | None = None  # whether the compiler's footprint decides `if constexpr`s
        for node in src.nodes():  # pre-order: an outer branch comes before the ones it holds
            if node.start_byte < inside:
                continue
            if level == 0 and node.type in _BRANCHES and _constexpr_else(node):
                if informed is None:
                    informed = src.values is not None and src.values.footprint(src.text) is not None
                if informed:
                    continue
            if level == 0 and node.type in _BRANCHES:
                items.append(deletion(*line_span(src.text, node.start_byte, node.end_byte)))
            elif level == 1 and (item := _other_side(src, node)) is not None:
                items.append(item)
            else:
                continue
            inside = node.end_byte
        return items


def _constexpr_else(node: Node) -> bool:
    """The `else` of an `if constexpr`."""
    up = node.parent
    return node.type == "else_clause" and up is not None and any(c.type == "constexpr" for c in up.children)


def _other_side(src: Source, node: Node) -> Item | None:
    """The item keeping only the `else` of a dispatching if (deleting it, without an else); None
    for an if that does not dispatch, an `if constexpr` (its other branch may not compile here)
    and an if whose condition declares something (`if (auto* p = f())`) the branches may use."""
    if node.type != "if_statement" or any(c.type == "constexpr" for c in node.children):
        return None
    cond, then = node.child_by_field_name("condition"), node.child_by_field_name("consequence")
    if cond is None or then is None or any(c.type in ("declaration", "init_statement") or
                                           cond.field_name_for_child(i) == "initializer"
                                           for i, c in enumerate(cond.children)):
        return None
    if not any(n.type in _INSTANCES for n in walk(then)):
        return None
    alternative = node.child_by_field_name("alternative")
    if alternative is None:
        if node.parent is None or node.parent.type != "compound_statement":
            return None  # `else if (c) A` without an else of its own: level 0 takes the whole `else`
        return deletion(*line_span(src.text, node.start_byte, node.end_byte))
    body = alternative.named_children[-1] if alternative.type == "else_clause" and alternative.named_children \
        else alternative
    return (Edit(node.start_byte, node.end_byte, src.text[body.start_byte:body.end_byte]),)
