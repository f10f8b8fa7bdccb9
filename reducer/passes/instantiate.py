"""Instantiate a template used with one argument list only: an explicit instantiation
(`template void launch_impl<configs[45]>(...);`) or identical uses outside every template.

One item turns the template into the ordinary function or class it stands for: the
`template <...>` header goes, parameters become their arguments (`C.tile_m()` and
`configs[45].rep_m` fold to literals, other uses take the argument's text), `if constexpr`
keeps only its taken branch (the other one was never instantiated and may not compile), uses
lose their `<...>` and explicit instantiations are deleted. Deletion never gets here: the
kernel stays a template for as long as anything instantiates it.

A template explicitly instantiated with several argument lists (the fp16 and bf16 kernels of a
run that targets one of them) first gets an item per explicit instantiation, deleting it: once
one is left, the template can be instantiated.
"""
from __future__ import annotations

import copy
from collections import defaultdict

from tree_sitter import Node

from ..edits import Edit, Item, apply, line_span
from ..lexer import tokenize
from ..source import Source
from .base import Pass
from .consteval import expression
from .cxx import elements, entity_name, inside_template, simple_name, spaced
from .folding import Query, Value, ask, closed, confirmation, lookups, scope_of
from .literals import typed
from .names import local_names, looked_up, names_local

_ENTITIES = frozenset({"function_definition", "struct_specifier", "class_specifier", "union_specifier",
                       "alias_declaration"})
_BODIED = ("function_definition", "struct_specifier", "class_specifier")  # may declare their parameters
_USES = frozenset({"template_function", "template_type", "template_method"})
_NAMES = ("identifier", "type_identifier", "namespace_identifier")  # `T::x` scopes are namespace_identifier
_FOLDABLE = frozenset({"field_expression", "call_expression", "binary_expression", "unary_expression",
                       "conditional_expression", "parenthesized_expression", "identifier", "sizeof_expression",
                       "alignof_expression", "subscript_expression", "qualified_identifier", "cast_expression"})
_SIMPLE_ARG = frozenset({"identifier", "number_literal", "subscript_expression", "field_expression",
                         "call_expression", "parenthesized_expression", "true", "false", "type_identifier",
                         "compound_literal_expression", "qualified_identifier"})


def _entity(decl: Node) -> Node | None:
    entity = decl.named_children[-1] if decl.named_children else None
    return entity if entity is not None and entity.type in _ENTITIES else None


def _replace_names(text: bytes, replacements: dict[bytes, bytes]) -> bytes:
    """`text` with each name it looks up (not one after `::`, `.` or `->`) that `replacements`
    has replaced."""
    toks, out, pos = tokenize(text), [], 0
    for i, t in enumerate(toks):
        name = text[t.start:t.end]
        before = text[toks[i - 1].start:toks[i - 1].end] if i else b""
        if t.kind == "ident" and name in replacements and before not in (b"::", b".", b"->"):
            out += [text[pos:t.start], replacements[name]]
            pos = t.end
    return b"".join(out) + text[pos:]


def _squash(text: bytes) -> bytes:
    return b" ".join(text.split())


def _key(args: list[bytes]) -> bytes:
    """An argument list as one text, for comparing two of them."""
    return b"<" + b", ".join(_squash(a) for a in args) + b">"


class _Params:
    """A template's parameters bound to one argument list: each name's argument text (a default
    with the earlier parameters substituted), the type parameters, and the non-type ones'
    declared types (None for `auto` or a type naming another parameter)."""

    def __init__(self, texts: dict[bytes, bytes], types: set[bytes], declared: dict[bytes, bytes | None]):
        self.texts, self.types, self.declared = texts, types, declared

    def substitute(self, text: bytes) -> bytes:
        """`text` with the parameters it looks up replaced by their arguments."""
        return _replace_names(text, {name: self.argument(name, True) for name in self.texts})

    def argument(self, name: bytes, as_expression: bool) -> bytes:
        text = self.texts[name]
        if not as_expression or name in self.types:
            return text
        arg = expression(text)
        return text if arg is None or arg.type in _SIMPLE_ARG else b"(" + text + b")"


class _Renderer:
    """Text of a node with the template parameters replaced. An expression that mentions one
    becomes its value when `answers` has it (else its parts are tried), a parameter alone its
    value or else its argument's text; `if constexpr` keeps its taken branch. With `answers`
    None, rendering only collects the questions it would ask, in `queries`."""

    def __init__(self, src: Source, params: _Params, scope: tuple[bytes, ...], answers: dict | None,
                 values: dict[bytes, Value], structural: bool = False):
        self.src, self.params, self.scope, self.answers = src, params, scope, answers
        self.values = values  # parameter -> its value (class-type ones used only with `structural`)
        self.structural = structural
        self.queries: list[Query] = []
        # parameters a function body declares once (`constexpr kernel_config C = configs[53];`,
        # `using T = __bf16;`) and then uses by name, rather than copying the argument into every use
        self.aliased: tuple[bytes, ...] = ()
        self.body: Node | None = None

    def aliasing(self, name: bytes, body: Node) -> _Renderer:
        """A copy that also declares `name` at the top of `body`."""
        other = copy.copy(self)
        other.aliased, other.body = (*self.aliased, name), body
        return other

    def aliasable(self) -> list[bytes]:
        """The parameters a body may declare: the type ones, and the non-type ones of a known
        class-type value (not `xdl_input_type T`, a constrained type parameter that reads like one)."""
        return [n for n in self.params.texts
                if n in self.params.types or (v := self.values.get(n)) is not None and v.number is None]

    def render(self, start: int, end: int, nodes: list[Node], fold: bool = True) -> bytes:
        edits = [Edit(e.start - start, e.end - start, e.replacement) for n in nodes for e in self._edits(n, fold)]
        if fold and self.aliased and start <= self.body.start_byte < end:
            edits.append(Edit(self.body.start_byte + 1 - start, self.body.start_byte + 1 - start, self._declarations()))
        return apply(self.src.text[start:end], edits)

    def _declarations(self) -> bytes:
        """The aliased parameters' declarations, types first (a constant's type may name one)."""
        p, out = self.params, []
        for name in sorted(self.aliased, key=lambda n: n not in p.types):
            if name in p.types:
                out.append(b"using " + name + b" = " + p.texts[name] + b";")
                continue
            value = self.values.get(name)
            init = value.text if value is not None and self.structural else p.texts[name]
            static = b"static " if self.body.type == "field_declaration_list" else b""
            out.append(static + b"constexpr " + (p.declared[name] or b"auto") + b" " + name + b" = " + init + b";")
        return b"\n" + b"\n".join(out)

    def _edits(self, root: Node, fold: bool) -> list[Edit]:
        edits, stack = [], [root]
        while stack:
            n = stack.pop()
            replacement = self._replacement(n, fold)
            if replacement is None:
                stack.extend(n.children)
            else:
                edits.append(spaced(self.src.text, n.start_byte, n.end_byte, replacement))
        return edits

    def _mentions(self, node: Node) -> bool:
        if node.type in _NAMES:
            return node.text in self.params.texts
        return any(self._mentions(c) for c in node.named_children)

    def _ask(self, node: Node, type_: bytes | None = None) -> Value | None:
        """The value of an expression of the template's body, or None (when collecting: None,
        and the question is noted)."""
        closed_text = self.render(node.start_byte, node.end_byte, [node], fold=False)
        if not closed(self.src, closed_text, node):
            return None
        query = Query(closed_text, self.scope, type_)
        if self.answers is None:
            self.queries.append(query)
            return None
        return self.answers.get(query)

    def _replacement(self, n: Node, fold: bool) -> bytes | None:
        if fold and n.type == "if_statement" and any(c.type == "constexpr" for c in n.children):
            return self._fold_if(n)
        param = n.type in _NAMES and n.text in self.params.texts
        if fold and n.type in _FOLDABLE and not param and self._mentions(n):
            value = self._ask(n)
            if value is not None and not value.structural:  # a number, a boolean, an enumerator
                return value.text
        if param:
            parent = n.parent
            if parent is not None and parent.type == "qualified_identifier" and parent.child_by_field_name("name") == n:
                return None
            if fold and n.text in self.aliased and self.body.start_byte <= n.start_byte < self.body.end_byte:
                return None
            value = self.values.get(n.text) if fold else None
            if value is not None and (value.number is not None or self.structural):
                return value.text
            return self.params.argument(n.text, n.type == "identifier")
        return None

    def _fold_if(self, n: Node) -> bytes | None:
        cond = n.child_by_field_name("condition")
        cond = cond.named_children[-1] if cond is not None and cond.named_children else None
        value = self._ask(cond, b"bool") if cond is not None else None
        if value is None or not isinstance(value.number, (bool, int)):
            return None
        branch = n.child_by_field_name("consequence" if value.number else "alternative")
        if branch is not None and branch.type == "else_clause":
            branch = branch.named_children[-1] if branch.named_children else None
        if branch is None:
            return b"" if n.parent is not None and n.parent.type == "compound_statement" else b";"
        return self.render(branch.start_byte, branch.end_byte, [branch])


def _bind(params: list[Node], args: list[bytes]) -> _Params | None:
    """The parameters bound to the arguments' texts; None when the lists do not match."""
    if len(args) > len(params):
        return None
    bound = _Params({}, set(), {})
    for i, p in enumerate(params):
        if p.type in ("parameter_declaration", "optional_parameter_declaration"):
            name = p.child_by_field_name("declarator")
            given = args[i] if i < len(args) else None
            default = p.child_by_field_name("default_value")
            text = given if given is not None else bound.substitute(default.text) if default is not None else None
            if text is None or name is not None and name.type != "identifier":
                return None
            if name is None:  # `template <int>`: nothing can refer to it
                continue
            type_ = p.child_by_field_name("type")
            declared = type_.text if type_ is not None else None
            if declared is not None and (b"auto" in lookups(declared) or lookups(declared) & set(bound.texts)):
                declared = None
            bound.texts[name.text], bound.declared[name.text] = text, declared
        elif p.type in ("type_parameter_declaration", "optional_type_parameter_declaration"):
            name = p.child_by_field_name("name") \
                or next((c for c in p.named_children if c.type == "type_identifier"), None)
            default = p.child_by_field_name("default_type")
            text = args[i] if i < len(args) else bound.substitute(default.text) if default is not None else None
            if text is None:
                return None
            if name is not None:
                bound.texts[name.text] = text
                bound.types.add(name.text)
        else:
            return None  # variadic and template template parameters
    return bound


class Instantiate(Pass):
    name = "instantiate"
    summary = "turn a template used with one argument list into the plain function or class"
    needs_tree = True
    # Instantiating may copy an argument into many uses: a template gone is progress even so
    # (the next link of a chain, a kernel made plain), within a twentieth of the file.
    growth = 0.05

    def progress(self, src: Source) -> int:
        """Templates left."""
        return sum(n.type == "template_declaration" for n in src.nodes())

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
        local, first = local_names(src), first_declarations(src)
        plans, keep_one = [], []
        for name, decls in definitions.items():
            if len(decls) != 1 or decls[0].type != "template_declaration":
                continue
            sites = uses[name] + [_template_use(i) for i in instantiations[name]]
            if not uses[name] and len({_squash(s.child_by_field_name("arguments").text) for s in sites if s}) > 1:
                # explicitly instantiated for several kernels, of which a focused run targets one:
                # each instantiation may go, and the one left can then be instantiated
                keep_one += [(Edit(*line_span(src.text, i.start_byte, i.end_byte)),) for i in instantiations[name]]
            if not sites or any(s is None or inside_template(s) for s in sites):
                continue
            # the arguments as written, or else with the type aliases that name something declared
            # after the template replaced (`using PassThrough = ck::...::PassThrough;` in the file
            # that instantiates a library's kernel)
            for outer in (False, True):
                texts = [_arguments(s, outer) for s in sites]
                args = {_key(t) for t in texts}
                if len(args) == 1 and not names_local(next(iter(args)), local) \
                        and _declared_before(first, next(iter(args)), decls[0].start_byte):
                    break
            else:
                continue
            plan = _Plan(src, decls[0], uses[name], instantiations[name], specialisations[name], texts[-1])
            if plan.chosen is not None or plan.params is not None:
                plans.append(plan)
        # every value any of them needs, in one question; a structural literal one would use is
        # confirmed by a second (clang prints an enum field as a number: that does not compile back)
        answers = ask(src, [q for plan in plans for q in plan.queries()])
        choices = [plan.item(answers) for plan in plans]
        confirmations = ask(src, [q for _, _, wanted in choices for q in wanted])
        items = [literal_ if literal_ is not None and all(confirmations.get(q) == v for q, v in wanted.items())
                 else plain for plain, literal_, wanted in choices]
        items.sort(key=lambda item: item[0].start)
        return keep_one + items


def _arguments(site: Node, outer: bool = False) -> list[bytes]:
    """The texts of a use's template arguments, with the local constants and type aliases around
    it (`_local_constants`: `constexpr kernel_config C = conv::configs[53];`, left by
    instantiating that function) replaced: the next link of a chain must not name a local."""
    known = _local_constants(site, outer)
    return [_replace_names(arg.text, known) for arg in elements(site.child_by_field_name("arguments"))]


def _local_constants(site: Node, outer: bool = False) -> dict[bytes, bytes]:
    """What the functions and classes around `site` declared before it as a constant
    (`constexpr T name = init;`, a `static constexpr` member) or a type alias (`using T = X;`):
    name -> its initialiser (parenthesised unless a simple expression) or type. With `outer`,
    the type aliases of the namespaces around it too."""
    found: dict[bytes, bytes] = {}
    scope = site.parent
    while scope is not None:
        local = scope.type in _BODIED
        body = _declarations_read(scope, outer)
        for n in body.named_children if body is not None else ():
            if n.start_byte >= site.start_byte:
                break
            if n.type == "alias_declaration" \
                    and n.child_by_field_name("type").child_by_field_name("declarator") is None:
                found.setdefault(n.child_by_field_name("name").text, n.child_by_field_name("type").text)
            elif local and n.type in ("declaration", "field_declaration") \
                    and any(c.type == "type_qualifier" and c.text == b"constexpr" for c in n.children):
                for d in n.children_by_field_name("declarator"):
                    name, value = (d.child_by_field_name("declarator"), d.child_by_field_name("value")) \
                        if d.type == "init_declarator" else (d, n.child_by_field_name("default_value"))
                    if name is not None and name.type in ("identifier", "field_identifier") and value is not None \
                            and value.type not in ("initializer_list", "argument_list"):
                        found.setdefault(name.text,
                                         value.text if value.type in _SIMPLE_ARG else b"(" + value.text + b")")
        scope = scope.parent
    return found


def _declarations_read(scope: Node, outer: bool) -> Node | None:
    """Where `_local_constants` reads declarations in `scope`: a function's or class's body and,
    with `outer`, a namespace's or the file's top level."""
    if scope.type in _BODIED or outer and scope.type == "namespace_definition":
        return scope.child_by_field_name("body")
    return scope if outer and scope.type == "translation_unit" else None


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
    return all(first.get(name, -1) < pos for name in looked_up(args))  # undeclared: a system header's


def _explicit_instantiation(node: Node) -> Node | None:
    while node is not None \
            and node.type not in ("template_instantiation", "compound_statement", "template_declaration"):
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


class _Plan:
    """One template instantiated for `args`: the primary template becomes the entity for them,
    or, when an explicit specialisation for `args` exists, that one does; the other
    specialisations go (a plain class cannot have any). `queries` are the values it needs,
    `item` makes the edit from the answers."""

    def __init__(self, src: Source, decl: Node, uses: list[Node], instantiations: list[Node],
                 specialisations: list[Node], args: list[bytes]):
        self.src, self.decl, self.uses, self.instantiations = src, decl, uses, instantiations
        self.specialisations = specialisations
        self.chosen = next((sp for sp in specialisations if _key(
            [e.text for e in elements(sp.child_by_field_name("name").child_by_field_name("arguments"))]) == _key(args)),
            None)
        self.params = None if self.chosen is not None else _bind(elements(decl.child_by_field_name("parameters")), args)
        self.scope = scope_of(decl)

    def _parameter_queries(self) -> dict[bytes, Query]:
        """A question per non-type parameter: its argument's value, as its declared type."""
        p = self.params
        return {name: Query(text, self.scope, p.declared[name], structural=p.declared[name] is not None)
                for name, text in p.texts.items() if name not in p.types and closed(self.src, text, self.decl)}

    def _renderer(self, answers: dict | None, structural: bool = False) -> _Renderer:
        values = {} if answers is None else {name: answers[q] for name, q in self._parameter_queries().items()
                                              if q in answers}
        return _Renderer(self.src, self.params, self.scope, answers, values, structural)

    def queries(self) -> list[Query]:
        if self.params is None:
            return []
        renderer = self._renderer(None)
        self._render(renderer)
        return [*self._parameter_queries().values(), *renderer.queries]

    def _render(self, renderer: _Renderer) -> tuple[list[Edit], tuple[bytes, ...]]:
        """The edits, and the parameters the function body declares (`_Renderer.aliased`)."""
        src, decl = self.src, self.decl
        entity = _entity(decl)
        type_ = entity.child_by_field_name("type") if entity.type == "alias_declaration" else None
        if type_ is not None and type_.child_by_field_name("declarator") is None:
            # an alias template of a plain type: each use becomes the type (an array or function
            # type, `acc_t[2][4]`, stays a plain alias: `acc_t[2][4]& acc` would not parse)
            value = renderer.render(type_.start_byte, type_.end_byte, [type_])
            return [Edit(*line_span(src.text, decl.start_byte, decl.end_byte)),
                    *(spaced(src.text, u.start_byte, u.end_byte, value) for u in self.uses)], ()
        text = renderer.render(entity.start_byte, decl.end_byte, [entity])
        body = entity.child_by_field_name("body") if entity.type in _BODIED else None
        if body is not None and renderer.answers is not None:
            # a parameter the body uses often is declared there once, when that is shorter: a
            # kernel's `C` copied as `conv::configs[53]` into forty uses made the item grow
            for name in renderer.aliasable():
                other = renderer.aliasing(name, body)
                if len(shorter := other.render(entity.start_byte, decl.end_byte, [entity])) < len(text):
                    renderer, text = other, shorter
        return [Edit(decl.start_byte, decl.end_byte, text), *self._unuse()], renderer.aliased

    def _unuse(self) -> list[Edit]:
        """Uses lose their `<...>`, explicit instantiations go."""
        src = self.src
        return [*(spaced(src.text, u.start_byte, u.end_byte, u.child_by_field_name("name").text) for u in self.uses),
                *(Edit(*line_span(src.text, i.start_byte, i.end_byte)) for i in self.instantiations)]

    def item(self, answers: dict) -> tuple[Item, Item | None, dict[Query, Value]]:
        """The item with every parameter used whole as its argument's text, and the one with the
        class-type ones as their structural literals when that is smaller, which holds only if
        each question of the dict gets its value back (the literal compiles as it came)."""
        src = self.src
        edits = [Edit(*line_span(src.text, sp.parent.start_byte, sp.parent.end_byte)) for sp in self.specialisations
                 if sp is not self.chosen]
        if self.chosen is not None:
            chosen, name = self.chosen, self.chosen.child_by_field_name("name")
            edits.append(Edit(*line_span(src.text, self.decl.start_byte, self.decl.end_byte)))
            edits.append(Edit(chosen.parent.start_byte, chosen.parent.end_byte,
                              src.text[chosen.start_byte:name.start_byte] + name.child_by_field_name("name").text
                              + src.text[name.end_byte:chosen.parent.end_byte]))
            return tuple(sorted(edits + self._unuse())), None, {}
        # A parameter used whole (`Shape<C>`) takes its argument's text (`configs[120]`), or its
        # structural literal (`Config{4, 4, 2}`), which no longer needs the table, when that
        # makes the smaller item: a literal copied into every use would make the next link of a
        # chain grow instead of shrink, and the chain ends with every field folded anyway. A
        # function body that declares the parameter once takes the literal whenever the item
        # still shrinks: the table is then free to go.
        renderer = self._renderer(answers)
        plain = edits + self._render(renderer)[0]
        literal_, wanted = None, {}
        if any(v.structural for v in renderer.values.values()):
            # enum members cast, so the literal compiles (literals.py); clang must print it back
            # as the value it came from
            structural = {q: answers[q] for q in self._parameter_queries().values()
                          if q in answers and answers[q].structural}
            literals = {q: v._replace(text=typed(src, v.text, self.scope)) for q, v in structural.items()}
            rendered, aliased = self._render(self._renderer({**answers, **literals}, structural=True))
            candidate = edits + rendered
            once = any(v.structural and name in aliased for name, v in renderer.values.items())
            if _growth(candidate) < _growth(plain) or once and _growth(candidate) < 0:
                literal_ = tuple(sorted(candidate))
                wanted = {confirmation(q, literals[q]): v for q, v in structural.items()}
        return tuple(sorted(plain)), literal_, wanted


def _growth(edits: list[Edit]) -> int:
    return sum(len(e.replacement) - (e.end - e.start) for e in edits)
