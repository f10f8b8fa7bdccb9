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

_ENTITIES = frozenset({"function_definition", "struct_specifier", "class_specifier", "union_specifier",
                       "alias_declaration"})
_USES = frozenset({"template_function", "template_type", "template_method"})
_NAMES = ("identifier", "type_identifier", "namespace_identifier")  # `T::x` scopes are namespace_identifier
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

    def __init__(self, src: Source, ev: ConstEval, values: dict, texts: dict, types: set):
        self.src, self.ev, self.values, self.texts, self.types = src, ev, values, texts, types

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
        if node.type in _NAMES:
            return node.text in self.texts
        return any(self._mentions(c) for c in node.named_children)

    def _replacement(self, n: Node) -> bytes | None:
        if n.type == "if_statement" and any(c.type == "constexpr" for c in n.children):
            return self._fold_if(n)
        if n.type in _FOLDABLE and self._mentions(n):
            value = literal(self.ev.eval(n, self.values))
            if value is not None:
                return value
        if n.type in _NAMES and n.text in self.texts:
            parent = n.parent
            if parent is not None and parent.type == "qualified_identifier" and parent.child_by_field_name("name") == n:
                return None
            text = self.texts[n.text]
            arg = expression(text) if n.type == "identifier" and n.text not in self.types else None
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


def _bind(ev: ConstEval, params: list[Node], args: list[Node]) -> tuple[dict, dict, set] | None:
    """Parameter name -> folded value, and -> argument text, and the type parameters' names;
    None when the lists do not match."""
    if len(args) > len(params):
        return None
    values, texts, types = {}, {}, set()
    for i, p in enumerate(params):
        if p.type in ("parameter_declaration", "optional_parameter_declaration"):
            name = p.child_by_field_name("declarator")
            given = args[i].text if i < len(args) else None
            default = p.child_by_field_name("default_value")
            text = given if given is not None else default.text if default is not None else None
            if text is None or name is not None and name.type != "identifier":
                return None
            if name is None:  # `template <int>`: nothing can refer to it
                continue
            value = ev.eval(expression(text), values)
            if value is not None:
                values[name.text] = value
            texts[name.text] = text
        elif p.type in ("type_parameter_declaration", "optional_type_parameter_declaration"):
            name = p.child_by_field_name("name") or next((c for c in p.named_children if c.type == "type_identifier"), None)
            default = p.child_by_field_name("default_type")
            text = args[i].text if i < len(args) else default.text if default is not None else None
            if text is None:
                return None
            if name is not None:
                texts[name.text] = text
                types.add(name.text)
        else:
            return None  # variadic and template template parameters
    return values, texts, types


class Instantiate(Pass):
    name = "instantiate"
    summary = "turn a template used with one argument list into the plain function or class"
    needs_tree = True

    def enumerate(self, src: Source) -> list[Item]:
        definitions: dict[bytes, list[Node]] = defaultdict(list)  # primary templates, partial specialisations
        specialisations: dict[bytes, list[Node]] = defaultdict(list)  # `template <> struct X<32> {...}`
        for node in src.nodes():
            if node.type == "template_declaration" and (entity := _entity(node)) is not None:
                definitions[entity_name(entity)].append(node)
            elif node.type in ("struct_specifier", "class_specifier") and node.child_by_field_name("name") is not None \
                    and node.child_by_field_name("name").type == "template_type":  # a specialisation
                name = simple_name(node.child_by_field_name("name").child_by_field_name("name"))
                full = node.parent is not None and node.parent.type == "template_declaration" \
                    and not elements(node.parent.child_by_field_name("parameters"))
                (specialisations[name].append(node) if full else definitions[name].append(node))
        uses: dict[bytes, list[Node]] = defaultdict(list)
        instantiations: dict[bytes, list[Node]] = defaultdict(list)
        for node in src.nodes():
            if node.type in _USES and (name := simple_name(node.child_by_field_name("name"))) in definitions \
                    and node.parent.type not in ("struct_specifier", "class_specifier"):  # a specialisation's name
                explicit = _explicit_instantiation(node)
                (instantiations[name] if explicit is not None else uses[name]).append(explicit or node)
        ev, local, first = None, local_names(src), first_declarations(src)
        items = []
        for name, decls in definitions.items():
            if len(decls) != 1 or decls[0].type != "template_declaration":
                continue
            sites = uses[name] + [_template_use(i) for i in instantiations[name]]
            if not sites or any(s is None or inside_template(s) for s in sites):
                continue
            args = {_squash(s.child_by_field_name("arguments").text) for s in sites}
            if len(args) != 1 or names_local(next(iter(args)), local) \
                    or not _declared_before(first, next(iter(args)), decls[0].start_byte):
                continue
            ev = ev or ConstEval(src)
            item = _instantiate(src, ev, decls[0], sites[-1], uses[name], instantiations[name],
                                specialisations[name], next(iter(args)))
            if item is not None:
                items.append(item)
        items.sort(key=lambda item: item[0].start)
        return items


def _looked_up(text: bytes) -> set[bytes]:
    """The names `text` looks up where it stands (`Shape::Acc` looks up `Shape` only)."""
    toks = tokenize(text)
    return {text[t.start:t.end] for i, t in enumerate(toks)
            if t.kind == "ident" and (i == 0 or text[toks[i - 1].start:toks[i - 1].end] != b"::")}


_DECLARING = frozenset({"struct_specifier", "class_specifier", "union_specifier", "enum_specifier",
                        "alias_declaration", "type_definition", "init_declarator", "function_declarator",
                        "declaration", "namespace_definition"})


def first_declarations(src: Source) -> dict[bytes, int]:
    """Name -> where its first declaration starts (template parameters are not declarations)."""
    first: dict[bytes, int] = {}
    for node in src.nodes():
        if node.type in _DECLARING:
            name = simple_name(node.child_by_field_name("name") or node.child_by_field_name("declarator"))
            if name is not None and name not in first:
                first[name] = node.start_byte
    return first


def _declared_before(first: dict[bytes, int], args: bytes, pos: int) -> bool:
    """Whether every name the arguments look up is declared before `pos`: the plain entity is
    where the template was, and `zero_acc<Shape::Acc>` must not use a later `Shape`."""
    return all(first.get(name, -1) < pos for name in _looked_up(args))  # undeclared: a system header's


def names_local(text: bytes, local: set[bytes]) -> bool:
    """Whether `text` looks up a name of `local`."""
    return bool(_looked_up(text) & local)


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
                 instantiations: list[Node], specialisations: list[Node], args: bytes) -> Item | None:
    """The primary template becomes the entity for `args`, or, when an explicit specialisation
    for `args` exists, that one does; the other specialisations go (a plain class cannot have any)."""
    chosen = next((sp for sp in specialisations
                   if _squash(sp.child_by_field_name("name").child_by_field_name("arguments").text) == args), None)
    edits = [Edit(*line_span(src.text, sp.parent.start_byte, sp.parent.end_byte)) for sp in specialisations
             if sp is not chosen]
    if chosen is not None:
        name = chosen.child_by_field_name("name")
        edits.append(Edit(*line_span(src.text, decl.start_byte, decl.end_byte)))
        edits.append(Edit(chosen.parent.start_byte, chosen.parent.end_byte,
                          src.text[chosen.start_byte:name.start_byte] + name.child_by_field_name("name").text
                          + src.text[name.end_byte:chosen.parent.end_byte]))
    else:
        bound = _bind(ev, elements(decl.child_by_field_name("parameters")), elements(site.child_by_field_name("arguments")))
        if bound is None:
            return None
        entity = _entity(decl)
        renderer = _Renderer(src, ev, *bound)
        if entity.type == "alias_declaration":  # an alias template: each use becomes the type
            type_ = entity.child_by_field_name("type")
            value = renderer.render(type_.start_byte, type_.end_byte, [type_])
            return tuple(sorted([*edits, Edit(*line_span(src.text, decl.start_byte, decl.end_byte)),
                                 *(spaced(src.text, u.start_byte, u.end_byte, value) for u in uses)]))
        edits.append(Edit(decl.start_byte, decl.end_byte, renderer.render(entity.start_byte, decl.end_byte, [entity])))
    edits += [spaced(src.text, u.start_byte, u.end_byte, u.child_by_field_name("name").text) for u in uses]
    edits += [Edit(*line_span(src.text, i.start_byte, i.end_byte)) for i in instantiations]
    return tuple(sorted(edits))


