"""Instantiate a template used with one argument list only: an explicit instantiation
(`template void launch_impl<configs[45]>(...);`) or identical uses outside every template.

One item turns the template into the ordinary function or class it stands for: the
`template <...>` header goes, parameters become their arguments (`C.tile_m()` and
`configs[45].rep_m` fold to literals, other uses take the argument's text), `if constexpr`
keeps only its taken branch (the other one was never instantiated and may not compile), uses
lose their `<...>` and explicit instantiations are deleted. Deletion never gets here: the
kernel stays a template for as long as anything instantiates it.
"""
from __future__ import annotations

from collections import defaultdict

from tree_sitter import Node

from ..edits import Edit, Item, apply, line_span
from ..lexer import tokenize
from ..source import Source
from .base import Pass
from .consteval import ConstEval, expression, literal
from .syntax import elements, simple_name, spaced

_ENTITIES = frozenset({"function_definition", "struct_specifier", "class_specifier", "union_specifier"})
_USES = frozenset({"template_function", "template_type", "template_method"})
_FOLDABLE = frozenset({"field_expression", "call_expression", "binary_expression", "unary_expression",
                       "conditional_expression", "parenthesized_expression", "identifier"})
_SIMPLE_ARG = frozenset({"identifier", "number_literal", "subscript_expression", "field_expression",
                         "call_expression", "parenthesized_expression", "true", "false", "type_identifier"})


def _entity(decl: Node) -> Node | None:
    entity = decl.named_children[-1] if decl.named_children else None
    return entity if entity is not None and entity.type in _ENTITIES else None


def entity_name(entity: Node) -> bytes | None:
    if entity.type == "function_definition":
        return simple_name(entity.child_by_field_name("declarator"))
    name = entity.child_by_field_name("name")
    return name.text if name is not None and name.type == "type_identifier" else None


def inside_template(node: Node) -> bool:
    node = node.parent
    while node is not None:
        if node.type == "template_declaration":
            return True
        node = node.parent
    return False


def _squash(text: bytes) -> bytes:
    return b" ".join(text.split())


class _Renderer:
    """Text of a node with the template parameters of `env` replaced."""

    def __init__(self, src: Source, ev: ConstEval, values: dict, texts: dict):
        self.src, self.ev, self.values, self.texts = src, ev, values, texts

    def render(self, start: int, end: int, nodes: list[Node]) -> bytes:
        edits = [Edit(e.start - start, e.end - start, e.replacement) for n in nodes for e in self._edits(n)]
        return apply(self.src.text[start:end], edits)

    def _edits(self, root: Node) -> list[Edit]:
        edits, stack = [], [root]
        while stack:
            n = stack.pop()
            replacement = self._replacement(n)
            if replacement is None:
                stack.extend(n.children)
            else:
                edits.append(spaced(self.src.text, n.start_byte, n.end_byte, replacement))
        return edits

    def _mentions(self, node: Node) -> bool:
        if node.type in ("identifier", "type_identifier"):
            return node.text in self.texts
        return any(self._mentions(c) for c in node.named_children)

    def _replacement(self, n: Node) -> bytes | None:
        if n.type == "if_statement" and any(c.type == "constexpr" for c in n.children):
            return self._fold_if(n)
        if n.type in _FOLDABLE and self._mentions(n):
            value = literal(self.ev.eval(n, self.values))
            if value is not None:
                return value
        if n.type in ("identifier", "type_identifier") and n.text in self.texts:
            parent = n.parent
            if parent is not None and parent.type == "qualified_identifier" and parent.child_by_field_name("name") == n:
                return None
            text = self.texts[n.text]
            arg = expression(text) if n.type == "identifier" else None
            return text if arg is None or arg.type in _SIMPLE_ARG else b"(" + text + b")"
        return None

    def _fold_if(self, n: Node) -> bytes | None:
        cond = n.child_by_field_name("condition")
        value = self.ev.eval(cond.named_children[-1] if cond is not None and cond.named_children else None, self.values)
        if not isinstance(value, (bool, int)):
            return None
        branch = n.child_by_field_name("consequence" if value else "alternative")
        if branch is not None and branch.type == "else_clause":
            branch = branch.named_children[-1] if branch.named_children else None
        if branch is None:
            return b"" if n.parent is not None and n.parent.type == "compound_statement" else b";"
        return self.render(branch.start_byte, branch.end_byte, [branch])


def _bind(ev: ConstEval, params: list[Node], args: list[Node]) -> tuple[dict, dict] | None:
    """Parameter name -> folded value, and -> argument text; None when the lists do not match."""
    if len(args) > len(params):
        return None
    values, texts = {}, {}
    for i, p in enumerate(params):
        if p.type in ("parameter_declaration", "optional_parameter_declaration"):
            name = p.child_by_field_name("declarator")
            given = args[i].text if i < len(args) else None
            default = p.child_by_field_name("default_value")
            text = given if given is not None else default.text if default is not None else None
            if name is None or name.type != "identifier" or text is None:
                return None
            value = ev.eval(expression(text), values)
            if value is not None:
                values[name.text] = value
            texts[name.text] = text
        elif p.type in ("type_parameter_declaration", "optional_type_parameter_declaration"):
            name = p.child_by_field_name("name") or next((c for c in p.named_children if c.type == "type_identifier"), None)
            default = p.child_by_field_name("default_type")
            text = args[i].text if i < len(args) else default.text if default is not None else None
            if name is None or text is None:
                return None
            texts[name.text] = text
        else:
            return None  # variadic and template template parameters
    return values, texts


class Instantiate(Pass):
    name = "instantiate"
    needs_tree = True

    def enumerate(self, src: Source) -> list[Item]:
        definitions: dict[bytes, list[Node]] = defaultdict(list)
        for node in src.nodes():
            if node.type == "template_declaration" and (entity := _entity(node)) is not None:
                definitions[entity_name(entity)].append(node)
            elif node.type in ("struct_specifier", "class_specifier") and node.child_by_field_name("name") is not None \
                    and node.child_by_field_name("name").type == "template_type":  # a specialisation
                definitions[simple_name(node.child_by_field_name("name").child_by_field_name("name"))].append(node)
        uses: dict[bytes, list[Node]] = defaultdict(list)
        instantiations: dict[bytes, list[Node]] = defaultdict(list)
        for node in src.nodes():
            if node.type in _USES and (name := simple_name(node.child_by_field_name("name"))) in definitions:
                explicit = _explicit_instantiation(node)
                (instantiations[name] if explicit is not None else uses[name]).append(explicit or node)
        ev, local = None, local_names(src)
        items = []
        for name, decls in definitions.items():
            if len(decls) != 1 or decls[0].type != "template_declaration":
                continue
            sites = uses[name] + [_template_use(i) for i in instantiations[name]]
            if not sites or any(s is None or inside_template(s) for s in sites):
                continue
            args = {_squash(s.child_by_field_name("arguments").text) for s in sites}
            if len(args) != 1 or any(t.kind == "ident" and a[t.start:t.end] in local for a in args for t in tokenize(a)):
                continue
            ev = ev or ConstEval(src)
            item = _instantiate(src, ev, decls[0], sites[-1], uses[name], instantiations[name])
            if item is not None:
                items.append(item)
        items.sort(key=lambda item: item[0].start)
        return items


def local_names(src: Source) -> set[bytes]:
    """Names declared in a function or class body: an argument naming one (`zero_acc<Acc>()` with
    a local `using Acc`) means nothing where the template is defined."""
    names = set()
    for node in src.nodes():
        if node.type in ("alias_declaration", "type_definition", "declaration", "field_declaration") \
                and node.parent is not None and node.parent.type in ("compound_statement", "field_declaration_list"):
            name = node.child_by_field_name("name") or node.child_by_field_name("declarator")
            if name is not None:
                names.add(simple_name(name) or name.text)
    return names


def _explicit_instantiation(node: Node) -> Node | None:
    while node is not None and node.type not in ("template_instantiation", "compound_statement", "template_declaration"):
        node = node.parent
    return node if node is not None and node.type == "template_instantiation" else None


def _template_use(inst: Node) -> Node | None:
    stack = [inst]
    while stack:
        n = stack.pop()
        if n.type in _USES:
            return n
        stack.extend(reversed(n.children))
    return None


def _instantiate(src: Source, ev: ConstEval, decl: Node, site: Node, uses: list[Node],
                 instantiations: list[Node]) -> Item | None:
    params = decl.child_by_field_name("parameters")
    entity = _entity(decl)
    bound = _bind(ev, elements(params), elements(site.child_by_field_name("arguments")))
    if bound is None:
        return None
    renderer = _Renderer(src, ev, *bound)
    edits = [Edit(decl.start_byte, decl.end_byte, renderer.render(entity.start_byte, decl.end_byte, [entity]))]
    edits += [spaced(src.text, u.start_byte, u.end_byte, u.child_by_field_name("name").text) for u in uses]
    edits += [Edit(*line_span(src.text, i.start_byte, i.end_byte)) for i in instantiations]
    return tuple(edits)


