"""Replace a construct by one of its parts (Perses' "replace with a compatible descendant"):
a loop or `if` by its body, an expression by an operand, a call by an argument."""
from __future__ import annotations

from tree_sitter import Node

from ..edits import Edit, Item
from ..source import Source
from .base import Pass

# node type -> fields whose subtree may stand in for the whole node
_PARTS = {
    "if_statement": ("consequence", "alternative"),
    "for_statement": ("body",),
    "for_range_loop": ("body",),
    "while_statement": ("body",),
    "do_statement": ("body",),
    "else_clause": (),
    "binary_expression": ("left", "right"),
    "conditional_expression": ("consequence", "alternative"),
    "parenthesized_expression": (),
    "cast_expression": ("value",),
    "unary_expression": ("argument",),
    "call_expression": ("arguments",),
    "compound_literal_expression": ("value",),
}


def _stand_ins(node: Node) -> list[Node]:
    parts = []
    for field in _PARTS[node.type]:
        child = node.child_by_field_name(field)
        if child is None:
            continue
        if child.type == "else_clause":
            child = child.named_children[-1] if child.named_children else None
        if child is None:
            continue
        if field == "arguments":
            parts += [a for a in child.named_children if a.type != "comment"]
        else:
            parts.append(child)
    if node.type == "parenthesized_expression" and node.named_children:
        parts.append(node.named_children[0])
    return parts


class Hoist(Pass):
    """Round k uses the k-th alternative of every node, so one chunk never mixes two choices
    for the same node."""

    name = "hoist"
    needs_tree = True

    def items(self, src: Source, round: int) -> list[Item] | None:
        items, more = [], False
        for node in src.nodes():
            if node.type not in _PARTS:
                continue
            parts = _stand_ins(node)
            if round < len(parts):
                part = parts[round]
                items.append((Edit(node.start_byte, node.end_byte, part.text),))
                more = True
        return items if more else None
