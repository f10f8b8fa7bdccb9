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

from ..text.edits import Edit, Item, apply, compatible, growth, line_span
from ..text.lexer import tokenize
from ..text.source import Source, walk
from .base import Pass
from .consteval import expression
from .cxx import elements, entity_name, generic, inside_template, parameters, simple_name, spaced
from .folding import Query, Value, ask, closed, confirmation, lookups, scope_of
from .literals import typed
from .names import declaration_counts, local_names, looked_up, names_local, qualified, spelled

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
    declared types (None for `auto` or a type naming another parameter). `kept` are names that
    stay as they are in the text and stand for their argument in questions only: a generic
    lambda's function parameters (`auto flag`), which its inlined body declares as locals."""

    def __init__(self, texts: dict[bytes, bytes], types: set[bytes], declared: dict[bytes, bytes | None],
                 kept: frozenset[bytes] = frozenset()):
        self.texts, self.types, self.declared, self.kept = texts, types, declared, kept

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
        # `if constexpr` whose condition mentions a parameter (or one of `derived`, constants
        # computed from them) and was not folded: a lambda inlined with one would compile its
        # discarded branch
        self.derived: frozenset[bytes] = frozenset()
        self.unfolded = 0

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

    def _mentions(self, node: Node, names: frozenset[bytes] = frozenset()) -> bool:
        if node.type in _NAMES:
            return node.text in self.params.texts or node.text in names
        return any(self._mentions(c, names) for c in node.named_children)

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
            folded = self._fold_if(n)
            cond = n.child_by_field_name("condition")
            if folded is None and cond is not None and self._mentions(cond, self.derived):
                self.unfolded += 1
            return folded
        if fold and n.type == "static_assert_declaration" and self._mentions(n, self.derived) \
                and _under_if_constexpr(n):
            # it held where the call took it; in a branch left unfolded it may be one the call
            # discarded, and with the parameters bound it is checked where it stands
            self.unfolded += 1
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
            if fold and n.text in self.params.kept:
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


def _completed(params: list[Node], args: list[bytes]) -> bytes:
    """`args` as one text with the defaults of the parameters they leave out: clang prints
    `Dispatcher<half, 32, true, false>` for the specialisation `Dispatcher<half, 32, true>` of
    `template <class T, int M, bool C, bool S = false>` (ck_tile's WarpGemmMfmaDispatcher)."""
    bound = _bind(params, args)
    return _key(args if bound is None else list(bound.texts.values()))


class Instantiate(Pass):
    name = "instantiate"
    well_formed = True
    summary = "turn a template used with one argument list into the plain function or class"
    needs_tree = True
    # Instantiating may copy an argument into many uses: a template gone is progress even so
    # (the next link of a chain, a kernel made plain), within a twentieth of the file.
    growth = 0.05

    def progress(self, src: Source) -> int:
        """Templates left, generic lambdas included."""
        return sum(n.type == "template_declaration" or n.type == "lambda_expression" and generic(n)
                   for n in src.nodes())

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
        seen: dict[str, list[Node]] = defaultdict(list)  # aliases, explicit instantiations, lambdas
        for node in src.nodes():
            if node.type in _USES and (name := simple_name(node.child_by_field_name("name"))) in definitions \
                    and node.parent.type not in ("struct_specifier", "class_specifier"):  # a specialisation's name
                explicit = _explicit_instantiation(node)
                (instantiations[name] if explicit is not None else uses[name]).append(explicit or node)
            elif node.type in ("alias_declaration", "template_instantiation", "lambda_expression"):
                seen[node.type].append(node)
        # `template float bench::DeviceOp::Invoker::Run(...);` with `using DeviceOp = ns::Op<...>;`:
        # an explicit instantiation of a member of the class template through an alias. The alias
        # is the use; the instantiation goes with it (a plain class's member cannot be instantiated)
        members = _member_instantiations(seen["alias_declaration"], seen["template_instantiation"], definitions)
        local, first = local_names(src), first_declarations(src)
        parameters_ = _template_parameter_names(definitions)
        alias_templates = _alias_templates(src, definitions)
        plans: list[_Plan | _LambdaPlan] = []
        keep_one: list[Item] = []
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
            # that instantiates a library's kernel); where the template is if they can be, else moved
            for moved, outer in ((False, False), (False, True), (True, False), (True, True)):
                # written where they are used, they must mean the same where the template is
                texts = [[qualified(src, a, scope_of(decls[0]), decls[0].start_byte, scope_of(s))
                          for a in _arguments(s, outer, alias_templates)] for s in sites]
                args = {_key(t) for t in texts if None not in t}
                if len(args) == 1 and all(None not in t for t in texts) and not names_local(next(iter(args)), local) \
                        and not looked_up(next(iter(args))) & (parameters_ - set(first)) \
                        and (place := _place(src, decls[0], sites, members[name], first, next(iter(args)),
                                             moved)) is not None:
                    break
            else:
                continue
            plan = _Plan(src, decls[0], uses[name], instantiations[name] + members[name], specialisations[name],
                         texts[-1], place)
            if plan.chosen is not None or plan.params is not None:
                plans.append(plan)
        # every value any of them needs, in one question; a structural literal one would use is
        # confirmed by a second (clang prints an enum field as a number: that does not compile back)
        plans += [lp for lam in seen["lambda_expression"] if generic(lam) and (lp := _lambda_plan(src, lam))]
        answers = ask(src, [q for plan in plans for q in plan.queries()])
        choices = [choice for plan in plans if (choice := plan.item(answers)) is not None]
        confirmations = ask(src, [q for _, _, wanted in choices for q in wanted])
        items = [literal_ if literal_ is not None and all(confirmations.get(q) == v for q, v in wanted.items())
                 else plain for plain, literal_, wanted in choices]
        items.sort(key=lambda item: item[0].start)
        # one link of a chain at a time: the next one's edits lie inside this one's (its use is
        # in this one's arguments, or both move before one declaration), and wait for the text
        # this one leaves
        return compatible(keep_one + items, lambda i: (i,))


def _template_parameter_names(definitions: dict[bytes, list[Node]]) -> set[bytes]:
    """The names the templates' parameter lists declare: an argument naming one that nothing
    else declares is a template's parameter (`store_stage<T, C>` in a kernel whose template
    head tree-sitter lost to a macro), which means nothing where the template is."""
    names = set()
    for decls in definitions.values():
        for decl in decls:
            params = decl.child_by_field_name("parameters") if decl.type == "template_declaration" else None
            for p in elements(params) if params is not None else ():
                name = p.child_by_field_name("declarator") or p.child_by_field_name("name") \
                    or next((c for c in p.named_children if c.type == "type_identifier"), None)
                if (n := simple_name(name) if name is not None else None) is not None:
                    names.add(n)
    return names


def _arguments(site: Node, outer: bool = False, alias_templates: dict | None = None) -> list[bytes]:
    """The texts of a use's template arguments, with the local constants and type aliases around
    it (`_local_constants`: `constexpr kernel_config C = conv::configs[53];`, left by
    instantiating that function) replaced: the next link of a chain must not name a local. With
    `outer`, also the namespaces' type aliases and the uses of alias templates (`S<4, 64, 1>`
    with `template <ck::index_t... Is> using S = ck::Sequence<Is...>;` is `ck::Sequence<4, 64, 1>`)."""
    known = _local_constants(site, outer)
    texts = [_replace_names(arg.text, known) for arg in elements(site.child_by_field_name("arguments"))]
    return [_expand(t, alias_templates) for t in texts] if outer and alias_templates else texts


def _alias_templates(src: Source, definitions: dict[bytes, list[Node]]) -> dict[bytes, tuple[list, bytes]]:
    """Alias templates of namespace scope declared once: name -> (parameters as (name, is a
    pack, is a type), the aliased type)."""
    found = {}
    for name, decls in definitions.items():
        entity = _entity(decls[0]) if len(decls) == 1 and decls[0].type == "template_declaration" else None
        if entity is None or entity.type != "alias_declaration" or inside_template(decls[0]) \
                or decls[0].parent.type not in ("translation_unit", "declaration_list"):
            continue
        params: list[tuple[bytes, bool, bool]] = []  # name, pack, type
        for p in elements(decls[0].child_by_field_name("parameters")):
            pack = p.type in ("variadic_parameter_declaration", "variadic_type_parameter_declaration")
            type_ = p.type in ("type_parameter_declaration", "variadic_type_parameter_declaration")
            if type_:
                pname = next((c.text for c in p.named_children if c.type == "type_identifier"), None)
            elif p.type in ("parameter_declaration", "variadic_parameter_declaration"):
                pname = simple_name(p.child_by_field_name("declarator"))
            else:
                pname = None  # a default: not worth it
            if pname is None or params and params[-1][1]:
                break
            params.append((pname, pack, type_))
        else:
            found[name] = (params, entity.child_by_field_name("type").text)
    return found


def _expand(text: bytes, alias_templates: dict[bytes, tuple[list, bytes]]) -> bytes:
    """`text` with each unqualified use of an alias template replaced by what it stands for."""
    for _ in range(8):  # nested uses (`S<S<1>::size>`) one level at a time
        toks, out, pos, changed = tokenize(text), [], 0, False
        lex = [text[t.start:t.end] for t in toks]
        i = 0
        while i < len(toks):
            alias = alias_templates.get(lex[i]) if toks[i].kind == "ident" else None
            if alias is None or i + 1 >= len(toks) or lex[i + 1] != b"<" or i and lex[i - 1] in (b"::", b".", b"->"):
                i += 1
                continue
            args, end = _template_arguments(text, toks, lex, i + 1)
            expansion = None if args is None else _substitute(alias, args)
            if expansion is None:
                i += 1
                continue
            out += [text[pos:toks[i].start], expansion]
            pos, changed = end, True
            while i < len(toks) and toks[i].start < end:
                i += 1
        text = b"".join(out) + text[pos:]
        if not changed:
            break
    return text


def _template_arguments(text: bytes, toks: list, lex: list[bytes], open_: int) -> tuple[list[bytes] | None, int]:
    """The arguments of the `<...>` opening at token `open_`, and where it ends (after its `>`,
    which may be the first half of a `>>`)."""
    depth, angle, args, start = 0, 0, [], toks[open_].end
    for j in range(open_, len(toks)):
        t = lex[j]
        if t in (b"(", b"[", b"{"):
            depth += 1
        elif t in (b")", b"]", b"}"):
            depth -= 1
        elif t == b"<" and depth == 0:
            angle += 1
        elif t in (b">", b">>", b">>>") and depth == 0:  # the lexer joins `>>` (and `>>>`, a launch)
            closes = min(angle, len(t))
            angle -= closes
            if angle == 0:  # the last `>` consumed is this list's
                args.append(text[start:toks[j].start + closes - 1].strip())
                return ([] if args == [b""] else args), toks[j].start + closes
        elif t == b"," and depth == 0 and angle == 1:
            args.append(text[start:toks[j].start].strip())
            start = toks[j].end
    return None, len(toks)


def _substitute(alias: tuple[list, bytes], args: list[bytes]) -> bytes | None:
    params, type_ = alias
    if len(args) < len(params) - (1 if params and params[-1][1] else 0) \
            or len(args) > len(params) and not (params and params[-1][1]):
        return None
    bound: dict[bytes, bytes] = {}
    for k, (name, pack, is_type) in enumerate(params):
        if pack:
            bound[name] = b", ".join(args[k:])
        else:
            arg = args[k]
            simple = expression(arg) is not None and expression(arg).type in _SIMPLE_ARG
            bound[name] = arg if is_type or simple else b"(" + arg + b")"
    toks, out, pos = tokenize(type_), [], 0
    lex = [type_[t.start:t.end] for t in toks]
    for i, t in enumerate(toks):
        if t.kind == "ident" and lex[i] in bound and not (i and lex[i - 1] in (b"::", b".", b"->")):
            pack = any(p[0] == lex[i] and p[1] for p in params)
            if pack and (i + 1 >= len(toks) or lex[i + 1] != b"..."):
                return None  # a pack used other than as `Is...`
            out += [type_[pos:t.start], bound[lex[i]]]
            pos = toks[i + 1].end if pack else t.end
    return b"".join(out) + type_[pos:]


def _member_instantiations(alias_nodes: list[Node], instantiation_nodes: list[Node],
                           definitions: dict[bytes, list[Node]]) -> dict[bytes, list[Node]]:
    """Class template -> explicit instantiations of a member of one of its instances named
    through a namespace-scope alias (`template float bench::DeviceOp::Invoker::Run(...);`)."""
    aliases: dict[bytes, bytes] = {}
    found: dict[bytes, list[Node]] = defaultdict(list)
    for node in alias_nodes + instantiation_nodes:  # aliases first: an alias is declared before its use
        if node.type == "alias_declaration" and node.parent is not None \
                and node.parent.type in ("translation_unit", "declaration_list"):
            type_ = node.child_by_field_name("type")
            inner = type_.child_by_field_name("type") if type_ is not None else None
            while inner is not None and inner.type == "qualified_identifier":
                inner = inner.child_by_field_name("name")
            if inner is not None and inner.type == "template_type" and type_.child_by_field_name("declarator") is None \
                    and (template := simple_name(inner.child_by_field_name("name"))) in definitions:
                aliases[node.child_by_field_name("name").text] = template
        elif node.type == "template_instantiation" and aliases:
            name = _instantiated_name(node)
            scopes = []
            while name is not None and name.type == "qualified_identifier":
                scope = name.child_by_field_name("scope")
                scopes.append(scope.text if scope is not None else b"")
                name = name.child_by_field_name("name")
            if (template := next((aliases[s] for s in scopes[1:] + scopes[:1] if s in aliases), None)) is not None:
                found[template].append(node)
    return found


def _instantiated_name(inst: Node) -> Node | None:
    """The name an explicit instantiation instantiates (`ns::launch<C>`, `X::Invoker::Run`, `Foo<3>`)."""
    node = inst.child_by_field_name("declarator")
    while node is not None and node.type in ("function_declarator", "pointer_declarator", "reference_declarator"):
        node = node.child_by_field_name("declarator")
    if node is None and (type_ := inst.child_by_field_name("type")) is not None:
        node = type_.child_by_field_name("name")
    return node


def _local_constants(site: Node, outer: bool = False) -> dict[bytes, bytes]:
    """What the functions and classes around `site` declared before it as a constant
    (`constexpr T name = init;`, a `static constexpr` member) or a type alias (`using T = X;`):
    name -> its initialiser (parenthesised unless a simple expression) or type. With `outer`,
    the type aliases of the namespaces around it too."""
    found: dict[bytes, bytes] = {}
    scope = site.parent
    while scope is not None:
        local = scope.type in _BODIED or scope.type == "compound_statement"
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
    if scope.type == "compound_statement":  # a block in a function (an inlined lambda's)
        return scope
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
    """Whether every name the arguments spell is declared before `pos`, qualified ones too
    (`ck_tile::GemmTilePartitioner`): `zero_acc<Shape::Acc>` must not use a later `Shape`."""
    return all(first.get(name, -1) < pos for name in spelled(args, (b".", b"->")))  # undeclared: a system header's


def _place(src: Source, decl: Node, sites: list[Node], members: list[Node], first: dict[bytes, int],
           args: bytes, moved: bool) -> tuple[int, tuple[bytes, ...]] | None:
    """Where the plain entity goes, and the namespaces to open again around it there: where
    the template is, when the arguments are declared before it; else, `moved`, just before the
    declaration that holds the first use, at namespace scope, when the arguments are declared
    by then and nothing between the two names the template (ck_tile's GemmKernel, instantiated
    for a partitioner and a pipeline its header comes before). None: neither."""
    if _declared_before(first, args, decl.start_byte):
        return decl.start_byte, ()
    if not moved or members or decl.parent is None or decl.parent.type not in ("translation_unit", "declaration_list") \
            or decl.parent.type == "declaration_list" and decl.parent.parent.type != "namespace_definition":
        return None
    site = min(sites, key=lambda s: s.start_byte)
    node, outer = site, scope_of(decl)
    while node.parent is not None:
        holder = node.parent
        if holder.type == "translation_unit" or holder.type == "declaration_list" \
                and holder.parent.type == "namespace_definition":
            scope = scope_of(node)
            if outer[:len(scope)] == scope:
                break
        node = node.parent
    else:
        return None
    place = line_span(src.text, node.start_byte, node.end_byte)[0]
    name = entity_name(_entity(decl))
    between = src.text[decl.end_byte:place]
    if place <= decl.end_byte or not _declared_before(first, args, place) \
            or name in spelled(between, ()):
        return None
    return place, outer[len(scope):]


def _explicit_instantiation(node: Node) -> Node | None:
    """The explicit instantiation `node` names the instantiated template in; a use in its
    parameter types (`template void launch<C>(X<3> x);`) is an ordinary use."""
    use = node
    while node is not None \
            and node.type not in ("template_instantiation", "compound_statement", "template_declaration"):
        node = node.parent
    if node is None or node.type != "template_instantiation":
        return None
    name = _instantiated_name(node)
    return node if name is not None and name.start_byte <= use.start_byte < name.end_byte else None


def _template_use(inst: Node) -> Node | None:
    stack = [_instantiated_name(inst) or inst]
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
                 specialisations: list[Node], args: list[bytes], place: tuple[int, tuple[bytes, ...]]):
        self.src, self.decl, self.uses, self.instantiations = src, decl, uses, instantiations
        self.place, self.reopened = place  # where the plain entity goes (`_place`)
        self.specialisations = specialisations
        params = elements(decl.child_by_field_name("parameters"))
        self.chosen = next((sp for sp in specialisations if _completed(params, [
            e.text for e in elements(sp.child_by_field_name("name").child_by_field_name("arguments"))])
            == _completed(params, args)), None)
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
        if self.place == decl.start_byte:
            return [Edit(decl.start_byte, decl.end_byte, text), *self._unuse()], renderer.aliased
        moved = b"".join(b"namespace " + n + b" {\n" for n in self.reopened) + text + b"\n" \
            + b"}\n" * len(self.reopened)
        return [Edit(*line_span(src.text, decl.start_byte, decl.end_byte)), Edit(self.place, self.place, moved),
                *self._unuse()], renderer.aliased

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
            if growth(candidate) < growth(plain) or once and growth(candidate) < 0:
                literal_ = tuple(sorted(candidate))
                wanted = {confirmation(q, literals[q]): v for q, v in structural.items()}
        return tuple(sorted(plain)), literal_, wanted


# an argument that may go unevaluated (`integral_constant<bool, false>{}`)
_PURE = frozenset({"number_literal", "true", "false", "identifier", "qualified_identifier", "nullptr",
                   "compound_literal_expression"})
_EFFECTS = frozenset({"call_expression", "assignment_expression", "update_expression", "new_expression",
                      "delete_expression", "lambda_expression"})


class _LambdaPlan:
    """A generic lambda kept in a local and called once after it in the same function, with its
    template arguments given (`auto typed_launch = [&]<DataType DT>() {...};` ...
    `typed_launch.template operator()<DataType::bf16>();`; `auto launch_kernel = [&](auto
    has_main_k_block_loop) {...};` ... `return launch_kernel(integral_constant<bool, false>{});`):
    the call's statement becomes the body, as a block. Template parameters are bound as a
    template's are (their uses take the argument, constant expressions fold, `if constexpr`
    keeps its taken branch); function parameters are declared as locals bound to the arguments
    (`auto has_main_k_block_loop = integral_constant<bool, false>{};`), and questions read them
    as their arguments, so `has_main_k_block_loop.value` folds to `false` (the local then goes,
    its argument having no effect). The declaration goes in the same item.

    Only where the body means the same at the call: no init-capture or `mutable`, nothing the
    body names declared between the lambda and the call, the call a statement of its own (`f(...);`
    in a body with no `return`, or `return f(...);`). An `if constexpr` the parameters decide
    must fold: in the plain block its discarded branch would be compiled."""

    def __init__(self, src: Source, decl: Node, lam: Node, stmt: Node, bindings: list[tuple[Node, bytes, bytes, bool]],
                 params: _Params):
        self.src, self.decl, self.lam, self.stmt = src, decl, lam, stmt
        self.bindings = bindings  # per function parameter: its node, name, argument, whether that may go unevaluated
        self.params = params
        self.scope = scope_of(lam)

    def _parameter_queries(self) -> dict[bytes, Query]:
        p = self.params
        return {name: Query(text, self.scope, p.declared[name])
                for name, text in p.texts.items()
                if name not in p.types and name not in p.kept and closed(self.src, text, self.stmt)}

    def _renderer(self, answers: dict | None) -> _Renderer:
        values = {} if answers is None else {name: answers[q] for name, q in self._parameter_queries().items()
                                              if q in answers and not answers[q].structural}
        renderer = _Renderer(self.src, self.params, self.scope, answers, values)
        renderer.derived = _derived(self.lam.child_by_field_name("body"), self.params.texts)
        return renderer

    def queries(self) -> list[Query]:
        renderer = self._renderer(None)
        self._text(renderer)
        return [*self._parameter_queries().values(), *renderer.queries]

    def _text(self, renderer: _Renderer) -> bytes | None:
        """The block that replaces the call's statement."""
        body = self.lam.child_by_field_name("body")
        inner = renderer.render(body.start_byte, body.end_byte, [body])[1:-1]
        bindings, left = [], {inner[t.start:t.end] for t in tokenize(inner) if t.kind == "ident"}
        for p, name, arg, pure in self.bindings:
            if pure and name not in left:
                continue  # folded away: `has_main_k_block_loop.value` became `false`
            default = p.child_by_field_name("default_value")
            end = default.start_byte if default is not None else p.end_byte
            head = renderer.render(p.start_byte, end, [p]).rstrip().rstrip(b"=").rstrip()
            bindings.append(head + b" = " + arg + b";")
        tail = b""
        if self.stmt.type == "return_statement" and not _returns_value(body):
            tail = b" return;"  # `return f();` of a void lambda: the caller returned there
        return b"{ " + b" ".join(bindings) + (b" " if bindings else b"") + inner.strip() + tail + b" }"

    def item(self, answers: dict) -> tuple[Item, None, dict] | None:
        renderer = self._renderer(answers)
        text = self._text(renderer)
        if renderer.unfolded:
            return None
        src = self.src
        return (Edit(*line_span(src.text, self.decl.start_byte, self.decl.end_byte)),
                spaced(src.text, self.stmt.start_byte, self.stmt.end_byte, text)), None, {}


def _under_if_constexpr(node: Node) -> bool:
    """Whether an `if constexpr` of the same function or lambda holds `node`."""
    node = node.parent
    while node is not None and node.type not in ("lambda_expression", "function_definition"):
        if node.type == "if_statement" and any(c.type == "constexpr" for c in node.children):
            return True
        node = node.parent
    return False


def _derived(body: Node, params: dict[bytes, bytes]) -> frozenset[bytes]:
    """Constants of `body` computed from the parameters (`constexpr bool has_main_loop =
    has_main_k_block_loop.value;`)."""
    names = set()
    for n in walk(body):
        if n.type == "declaration" and any(c.type == "type_qualifier" and c.text == b"constexpr" for c in n.children):
            for d in n.children_by_field_name("declarator"):
                value = d.child_by_field_name("value") if d.type == "init_declarator" else None
                if value is not None and lookups(value.text) & set(params):
                    names.add(simple_name(d.child_by_field_name("declarator")))
    return frozenset(names)


def _own_statements(body: Node):
    """The nodes of `body` outside the lambdas it holds."""
    stack = [body]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(c for c in n.children if c.type != "lambda_expression")


def _returns_value(body: Node) -> bool:
    return any(n.type == "return_statement" and n.named_children for n in _own_statements(body))


def _lambda_plan(src: Source, lam: Node) -> _LambdaPlan | None:
    init = lam.parent
    decl = init.parent if init is not None else None
    if init is None or init.type != "init_declarator" or decl is None or decl.type != "declaration" \
            or decl.parent is None or decl.parent.type != "compound_statement" \
            or len(decl.children_by_field_name("declarator")) != 1 \
            or (type_ := decl.child_by_field_name("type")) is None or type_.type != "placeholder_type_specifier":
        return None
    name = init.child_by_field_name("declarator")
    captures, declarator = lam.child_by_field_name("captures"), lam.child_by_field_name("declarator")
    body = lam.child_by_field_name("body")
    if name is None or name.type != "identifier" or body is None \
            or captures is not None and any(c.type == "lambda_capture_initializer" for c in captures.children) \
            or declarator is not None and any(c.type == "lambda_specifier" or c.text == b"mutable"
                                              for c in declarator.children) \
            or any(n.type in ("goto_statement", "labeled_statement") or n.text == b"static"
                   for n in _own_statements(body)):
        return None
    block = decl.parent
    named = [n for n in walk(block)
             if n.type == "identifier" and n.text == name.text and n.start_byte != name.start_byte
             and not lam.start_byte <= n.start_byte < lam.end_byte]
    if len(named) != 1 or named[0].start_byte < decl.end_byte:
        return None
    call, template_args = _call_of(named[0])
    if call is None:
        return None
    stmt = call.parent
    if stmt.type == "return_statement":
        pass
    elif stmt.type != "expression_statement" or any(n.type == "return_statement" for n in _own_statements(body)):
        return None
    up = stmt.parent
    while up is not None and up != block:
        if up.type in ("lambda_expression", "function_definition"):
            return None  # inside another function: it would have to capture what the body names
        up = up.parent
    # the function parameters: all named, none a pack; arguments for all but defaulted ones
    fparams = elements(parameters(lam)) if parameters(lam) is not None else []
    args = elements(call.child_by_field_name("arguments"))
    names = [simple_name(p.child_by_field_name("declarator")) if p.child_by_field_name("declarator") else None
             for p in fparams]
    if len(args) > len(fparams) or None in names or any(p.type not in ("parameter_declaration",
                                                                         "optional_parameter_declaration")
                                                         for p in fparams) \
            or any(p.type == "parameter_declaration" for p in fparams[len(args):]):
        return None
    texts = [a.text for a in args] + [p.child_by_field_name("default_value").text for p in fparams[len(args):]]
    if {t for a in texts for t in looked_up(a)} & set(names):
        return None  # `auto x = x;` would read the new local
    own = set(declaration_counts(lam))
    if _declared_between(block, decl.end_byte, stmt.start_byte) & (lookups(body.text) - own):
        return None  # a name the body uses would mean the newer declaration at the call
    tparams = lam.child_by_field_name("template_parameters")
    if tparams is not None:
        bound = _bind(elements(tparams), template_args)
        if bound is None or len(bound.texts) < len([p for p in elements(tparams)]):
            return None
    elif template_args:
        return None
    else:
        bound = _Params({}, set(), {})
    kept = dict(zip(names, texts))
    params = _Params({**bound.texts, **kept}, bound.types, {**bound.declared, **dict.fromkeys(kept)}, frozenset(kept))
    pure = [a.type in _PURE and not any(n.type in _EFFECTS for n in walk(a)) for a in args]
    pure += [False] * (len(fparams) - len(args))
    return _LambdaPlan(src, decl, lam, stmt, list(zip(fparams, names, texts, pure)), params)


def _call_of(use: Node) -> tuple[Node | None, list[bytes]]:
    """The call `use` makes of the lambda it names (`f(a)`, `f.template operator()<X>(a)`,
    `f.operator()<X>(a)`) and the template arguments it gives."""
    parent = use.parent
    if parent.type == "call_expression" and parent.child_by_field_name("function") == use:
        return parent, []
    if parent.type != "field_expression" or parent.child_by_field_name("argument") != use \
            or parent.child_by_field_name("operator").type != "." or parent.parent.type != "call_expression" \
            or parent.parent.child_by_field_name("function") != parent:
        return None, []
    field = parent.child_by_field_name("field")
    method = field if field.type == "template_method" else next(
        (c for c in field.children if c.type == "template_method"), None) if field.type == "dependent_name" else None
    if method is None or method.child_by_field_name("name").type != "operator_name" \
            or method.child_by_field_name("name").text.replace(b" ", b"") != b"operator()":
        return None, []
    return parent.parent, [a.text for a in elements(method.child_by_field_name("arguments"))]


def _declared_between(block: Node, start: int, end: int) -> set[bytes]:
    """Names declared in `block` between `start` and `end` (also in scopes closed by then)."""
    names: set[bytes] = set()
    stack = [block]
    while stack:
        n = stack.pop()
        for c in n.children:
            if start <= c.start_byte and c.end_byte <= end:
                names |= set(declaration_counts(c))
            elif c.start_byte < end and c.end_byte > start:
                stack.append(c)
    return names
