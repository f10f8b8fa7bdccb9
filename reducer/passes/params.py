"""Delete a parameter together with the matching argument at every use in the file: function
parameters with call arguments, template parameters with template arguments. Deleting one
side alone never compiles, so neither lines nor lists can do this."""
from __future__ import annotations

from collections import defaultdict

from tree_sitter import Node

from ..text.edits import Edit, Item
from ..text.source import Source
from .base import Pass
from .cxx import elements, simple_name


def _signatures(src: Source):
    """(name, parameter nodes, kind) for each function declarator and template declaration."""
    for node in src.nodes():
        if node.type == "function_declarator":
            params = node.child_by_field_name("parameters")
            if params is not None:
                yield simple_name(node.child_by_field_name("declarator")), elements(params), "call"
        elif node.type == "template_declaration":
            params = node.child_by_field_name("parameters")
            body = next((c for c in node.named_children if c.type != "template_parameter_list"), None)
            if params is not None and body is not None:
                yield _declared_name(body), elements(params), "template"


def _declared_name(node: Node) -> bytes | None:
    if node.type in ("function_definition", "declaration", "field_declaration"):
        return simple_name(node.child_by_field_name("declarator"))
    return simple_name(node.child_by_field_name("name"))


def _uses(src: Source) -> dict[tuple[bytes, str], list[list[Node]]]:
    """Argument lists at each use, by (simple name, kind)."""
    uses: dict[tuple[bytes, str], list[list[Node]]] = defaultdict(list)
    for node in src.nodes():
        if node.type == "call_expression":
            args = node.child_by_field_name("arguments")
            name = simple_name(node.child_by_field_name("function"))
            if args is not None and name:
                uses[(name, "call")].append(elements(args))
        elif node.type in ("template_function", "template_type", "template_method"):
            args = node.child_by_field_name("arguments")
            name = simple_name(node.child_by_field_name("name"))
            if args is not None and name:
                uses[(name, "template")].append(elements(args))
    return uses


class Params(Pass):
    name = "params"
    summary = "delete a parameter together with its argument at every call or template use"
    needs_tree = True

    def enumerate(self, src: Source) -> list[Item]:
        uses = _uses(src)
        items = []
        for name, params, kind in _signatures(src):
            if not name:
                continue
            for i, param in enumerate(params):
                if param.type == "variadic_parameter_declaration" or param.text == b"void":
                    continue
                edits = [Edit(param.start_byte, param.end_byte)]
                edits += [Edit(args[i].start_byte, args[i].end_byte)
                          for args in uses.get((name, kind), ()) if i < len(args)]
                items.append(tuple(edits))
        items.sort(key=lambda item: item[0].start)
        return items
