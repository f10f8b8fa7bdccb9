"""Replace a construct by one of its parts (Perses' "replace with a compatible descendant"):
a loop or `if` by its body, an expression by an operand, a call by an argument, a namespace or
`extern "C"` block by its declarations, a template by the entity it declares."""
from __future__ import annotations

from tree_sitter import Node

from ..text.edits import Edit, Item
from ..text.source import Source
from .base import Pass

# node type -> fields whose subtree may stand in for the whole node
_PARTS = {
    "if_statement": ("consequence", "alternative"),
    "for_statement": ("body",),
    "for_range_loop": ("body",),
    "while_statement": ("body",),
    "do_statement": ("body",),
    "labeled_statement": ("statement",),
    "binary_expression": ("left", "right"),
    "conditional_expression": ("consequence", "alternative"),
    "parenthesized_expression": (),
    "cast_expression": ("value",),
    "unary_expression": ("argument",),
    "call_expression": ("arguments",),
    "compound_literal_expression": ("value",),
    "namespace_definition": ("body",),
    "linkage_specification": ("body",),
    "template_declaration": (),
}
_UNWRAP = frozenset({"namespace_definition", "linkage_specification"})  # body without its braces


def _stand_ins(node: Node) -> list[tuple[int, int]]:
    """Byte ranges, each of which may replace the node."""
    parts: list[tuple[int, int]] = []
    for field in _PARTS[node.type]:
        child = node.child_by_field_name(field)
        if child is not None and child.type == "else_clause":
            child = child.named_children[-1] if child.named_children else None
        if child is None:
            continue
        if field == "arguments":
            parts += [(a.start_byte, a.end_byte) for a in child.named_children if a.type != "comment"]
        elif node.type in _UNWRAP and child.type == "declaration_list":
            parts.append((child.start_byte + 1, child.end_byte - 1))
        else:
            parts.append((child.start_byte, child.end_byte))
    if node.type == "parenthesized_expression" and node.named_children:
        inner = node.named_children[0]
        parts.append((inner.start_byte, inner.end_byte))
    elif node.type == "template_declaration" and node.named_children:
        entity = node.named_children[-1]
        if entity.type != "template_parameter_list":
            parts.append((entity.start_byte, node.end_byte))
    return parts


class Hoist(Pass):
    """Level k uses the k-th alternative of every node, so one chunk never mixes two choices
    for the same node."""

    name = "hoist"
    well_formed = True
    summary = "replace a loop by its body, a namespace by its contents, an expression by an operand, and the like"
    needs_tree = True

    def items(self, src: Source, level: int) -> list[Item] | None:
        items: list[Item] = []
        for node in src.nodes():
            if node.type in _PARTS:
                parts = _stand_ins(node)
                if level < len(parts):
                    start, end = parts[level]
                    items.append((Edit(node.start_byte, node.end_byte, src.text[start:end]),))
        return items or None
