"""Inline a function at its only call and delete its definition, in one item, whatever its size
(C-Reduce and C-Vise inline only callees under 10 statements, so a helper chain stays); or at
every one of its calls, when that and deleting the definition shrink the file (a one-line
helper called twice).

The call's statement becomes a block that binds the parameters to the arguments as locals and
holds the body; a trailing `return e;` becomes an assignment to the caller's variable (or `e;`),
other returns `{ x = e; break; }` inside `do { } while (0)`. A call inside an expression is
inlined when the body is one `return e;`: the parameters become the (cast) arguments. The calls
and the definition go in the same item, so the file shrinks.
"""
from __future__ import annotations

import re
from collections import Counter

from tree_sitter import Node

from ..text.edits import Edit, Item, apply, growth, layered, line_span
from ..text.source import Source, walk
from .base import Pass
from .cxx import elements, generic, inside_template, kernel_head, placeholder, simple_name
from .folding import scope_of
from .names import declaration_counts, qualified, written_at

_SCOPES = frozenset({"translation_unit", "declaration_list", "preproc_if", "preproc_ifdef", "preproc_else",
                     "preproc_elif", "linkage_specification"})
_LOOPS = frozenset({"for_statement", "for_range_loop", "while_statement", "do_statement", "switch_statement"})
_UNSAFE = frozenset({"lambda_expression", "goto_statement", "labeled_statement", "static_assert_declaration"})
_MACRO_LIKE = re.compile(rb"^(?:[A-Z][A-Z0-9_]*|__\w+__|inline|static|extern|constexpr|consteval)$")
_ATTRIBUTES = re.compile(rb"\[\[.*?\]\]|__attribute__\s*\(\(.*?\)\)|__declspec\s*\(.*?\)", re.S)
_AUTO = re.compile(rb"\bauto\b")
_CONSTEXPR = re.compile(rb"\bconstexpr\b")
_INT_LITERAL = re.compile(rb"^(?:0|[1-9][0-9]*)$")
_PLAIN = frozenset({"identifier", "number_literal", "true", "false", "field_expression"})


class _Callee:
    """A function to inline: its parameters, body and returns, read from `src` (`node` is the
    definition in the file; the text read may be a copy with names qualified, `at`)."""

    def __init__(self, src: Source, fn: Node, node: Node | None = None):
        decl = fn.child_by_field_name("declarator")
        self.src, self.node, self.body = src, node if node is not None else fn, fn.child_by_field_name("body")
        self.params = elements(decl.child_by_field_name("parameters"))
        self.names = [_param_name(p) for p in self.params]
        head = _ATTRIBUTES.sub(b" ", src.text[fn.start_byte:decl.start_byte]).split()
        while head and _MACRO_LIKE.match(head[0]):
            head.pop(0)
        # the type a call's value is cast to when inlined in an expression: none for a deduced one
        # (`auto`, `decltype(auto)`), whose value has the expression's own type (`(auto)(e)` would
        # not compile), unless a trailing return type names it
        trailing = next((c for c in decl.children if c.type == "trailing_return_type"), None)
        self.returns = b" ".join(head)
        self.cast: bytes | None = self.returns
        if _AUTO.search(self.returns):
            self.cast = trailing.named_children[0].text if trailing is not None and trailing.named_children else None
        self.return_nodes = [n for n in walk(self.body) if n.type == "return_statement"]

    def ok(self) -> bool:
        """Whether a call of it can become its body: a plain function with a braced body and
        named parameters, not a kernel, nothing in the body that cannot be copied."""
        return self._braced_body() and self._plain_parameters() and not self._kernel() and not self._unsafe_body() \
            and not self._discards()

    def _braced_body(self) -> bool:
        return self.body is not None and self.body.type == "compound_statement"

    def _plain_parameters(self) -> bool:
        """Every parameter named, none `...`, no `(void)`."""
        return all(self.names) and not any(
            p.type == "variadic_parameter_declaration" or p.text == b"void" for p in self.params)

    def _discards(self) -> bool:
        """An abbreviated function template (`auto` parameters) with an `if constexpr`: copied
        into a plain function, its discarded branch would be compiled too (and may not build)."""
        return generic(self.node) and any(
            n.type == "if_statement" and any(c.type == "constexpr" for c in n.children) for n in walk(self.body))

    def _kernel(self) -> bool:
        return kernel_head(self.node)

    def _unsafe_body(self) -> bool:
        """A lambda, a label or goto, a static_assert, a `static` local: copies would differ."""
        return any(n.type in _UNSAFE or n.text == b"static" for n in walk(self.body))

    def encloses(self, node: Node) -> bool:
        return self.node.start_byte <= node.start_byte < self.node.end_byte

    def at(self, scope: tuple[bytes, ...], before: int) -> _Callee | None:
        """The callee as its body reads in the namespaces `scope`, before `before`: the names it
        looks up in its own namespace qualified where they would mean something else there, or
        nothing (`wgrad_xdl_spreads` of a helper in `conv`, called from `host`); None when that
        cannot be said (a name of an unnamed namespace)."""
        origin = scope_of(self.node)
        if scope == origin:
            return self
        text = self.src.text[self.node.start_byte:self.node.end_byte]
        own = frozenset(declaration_counts(self.node))
        moved = qualified(self.src, text, scope, before, origin, own)
        if moved is None or moved == text:
            return None if moved is None else self
        copy = Source(moved, self.src.language)
        fn = copy.tree.root_node.named_children[0] if copy.tree.root_node.named_children else None
        if fn is None or fn.type != "function_definition" or copy.error_count > 0 and \
                copy.error_count > Source(text, self.src.language).error_count:
            return None
        return _Callee(copy, fn, self.node)


def _param_name(p: Node) -> bytes | None:
    decl = p.child_by_field_name("declarator")
    return simple_name(decl) if decl is not None and decl.type != "abstract_function_declarator" else None


class Inline(Pass):
    """Level k holds layer k of the items (`layered`): inlining `g` copies its body, calling
    `f`, while `f`'s own item inlines that call and deletes `f`; in one chunk, a call of nothing
    (on a ck_tile result, 21 such pairs among 41 items). Items of one level compose; the first
    in the file goes first, and one that clashes with it is at the next level, or, once the
    first is kept, in the same level's next enumeration."""

    name = "inline"
    well_formed = True
    summary = "inline a function at its call (or at every call, when that shrinks the file) and delete it"
    needs_tree = True

    def items(self, src: Source, level: int) -> list[Item] | None:
        layers = layered(self.enumerate(src), lambda i: (i,))
        return layers[level] if level < len(layers) else ([] if level == 0 else None)

    def enumerate(self, src: Source) -> list[Item]:
        counts = Counter(src.text[t.start:t.end] for t in src.tokens if t.kind == "ident")
        defs: dict[bytes, list[Node]] = {}
        for node in src.nodes():
            if _plain_definition(node):
                defs.setdefault(simple_name(node.child_by_field_name("declarator")), []).append(node)
        calls: dict[bytes, list[Node]] = {}
        for node in src.nodes():
            if (name := _called_name(node)) is not None:
                calls.setdefault(name, []).append(node)
        items = []
        for name, sites in calls.items():
            if not _named_only_there(name, defs, counts, sites):
                continue
            callee = _Callee(src, defs[name][0])
            if not callee.ok() or _recursive_or_nested(callee, sites):
                continue
            # the body, read where each call is (its namespaces' names qualified)
            where = {scope: callee.at(scope, min(c.start_byte for c in sites if scope_of(c) == scope))
                     for scope in {scope_of(c) for c in sites}}
            if None in where.values():
                continue
            edits = [_inline(src, c, where[scope_of(c)]) for c in sites]
            if None in edits:
                continue
            item = (*edits, Edit(*line_span(src.text, callee.node.start_byte, callee.node.end_byte)))
            if len(sites) == 1 or growth(item) < 0:
                items.append(item)
        return items


def _plain_definition(node: Node) -> bool:
    """A function definition with a plain declarator (not one returning a pointer) at file or
    namespace scope."""
    if node.type != "function_definition" or node.parent.type not in _SCOPES:
        return False
    decl = node.child_by_field_name("declarator")
    return decl is not None and decl.type == "function_declarator"


def _called_name(node: Node) -> bytes | None:
    """The name a plain call calls (`f(a)`, `ns::f(a)`; no kernel launch, no call through an
    expression), or None."""
    if node.type != "call_expression" or any(c.type == "kernel_call_syntax" for c in node.children):
        return None
    fn = node.child_by_field_name("function")
    return simple_name(fn) if fn is not None and fn.type in ("identifier", "qualified_identifier") else None


def _named_only_there(name: bytes, defs: dict[bytes, list[Node]], counts: Counter, sites: list[Node]) -> bool:
    """One definition, outside any template, and the name occurs once there and once at each
    call: nothing else (a declaration, an address taken) refers to it."""
    found = defs.get(name, ())
    return len(found) == 1 and counts[name] == 1 + len(sites) and not inside_template(found[0])


def _recursive_or_nested(callee: _Callee, sites: list[Node]) -> bool:
    """A call inside the callee itself, or a call inside another call's arguments."""
    return any(callee.encloses(c) or c.start_byte < d.start_byte < c.end_byte for c in sites for d in sites)


def _inline(src: Source, call: Node, callee: _Callee) -> Edit | None:
    args = elements(call.child_by_field_name("arguments"))
    if len(args) > len(callee.params):
        return None
    parent = call.parent
    if parent.type == "expression_statement":
        return _as_statement(src, parent, callee, args, None)
    if parent.type == "return_statement":
        return _as_statement(src, parent, callee, args, b"return")
    if (target := _assigned_by(call)) is not None:
        return _as_statement(src, parent.parent, callee, args, target)
    if parent.type == "init_declarator" and parent.parent.type == "declaration" \
            and parent.parent.parent.type == "compound_statement":
        stmt = parent.parent
        decl = parent.child_by_field_name("declarator")
        if decl.type == "identifier" and len([c for c in stmt.named_children if c.type == "init_declarator"]) == 1:
            head = src.text[stmt.start_byte:parent.start_byte]
            if _CONSTEXPR.search(head):
                # assigned in a block it is no constant: a use as one (`number<MWarp>`) would not
                # compile (13 of this pass's 36 tests on ck_tile's plain kernel); as an expression
                # it stays one
                return _as_expression(src, call, callee, args)
            type_ = stmt.child_by_field_name("type")
            if type_ is not None and type_.type == "placeholder_type_specifier":
                # `auto x;` declares nothing (on ck_tile's plain kernel, 45 of 68 failed builds of
                # this pass): the callee's return type where it writes a value's, else the call
                # inlined as an expression when it can be
                if callee.cast is None or b"&" in callee.cast:
                    return _as_expression(src, call, callee, args)
                head = src.text[stmt.start_byte:type_.start_byte] + callee.cast + \
                    src.text[type_.end_byte:parent.start_byte]
            head = head.replace(b"const ", b"")
            edit = _as_statement(src, stmt, callee, args, decl.text)
            return edit and Edit(edit.start, edit.end, head + decl.text + b";\n" + edit.replacement)
    return _as_expression(src, call, callee, args)


def _assigned_by(call: Node) -> bytes | None:
    """`x` when the call is the whole right side of the statement `x = f(a);`."""
    parent = call.parent
    if parent.type != "assignment_expression" or parent.parent.type != "expression_statement":
        return None
    left = parent.child_by_field_name("left")
    plain = parent.child_by_field_name("right") == call and parent.child_by_field_name("operator").type == "="
    return left.text if plain and left.type == "identifier" else None


def _bindings(src: Source, callee: _Callee, args: list[Node]) -> bytes | None:
    """`T p = arg;` per parameter; none where the argument is the parameter's own name and
    the body never writes to it (`p` passed on as `p`)."""
    out = []
    arg_idents = {t for a in args for t in _idents(a)}
    for i, (p, name) in enumerate(zip(callee.params, callee.names)):
        if i < len(args):
            value = args[i].text
        elif (default := p.child_by_field_name("default_value")) is not None:
            value = default.text
        else:
            return None
        if value == name and (_const_ref(p) or not _written(callee.src, callee.body, name)):
            continue
        if name in arg_idents:
            return None  # `int a = b; int b = a;`: the second would read the new local
        decl = p.text if p.type == "parameter_declaration" else \
            callee.src.text[p.start_byte:p.child_by_field_name("default_value").start_byte].rstrip().rstrip(b"=")
        out.append(decl + b" = " + value + b";")
    return b" ".join(out)


def _const_ref(p: Node) -> bool:
    decl = p.child_by_field_name("declarator")
    return decl is not None and decl.type == "reference_declarator" and any(
        c.type == "type_qualifier" and c.text == b"const" for c in p.children)


def _idents(node: Node) -> set[bytes]:
    return {n.text for n in walk(node) if n.type == "identifier"}


def _written(src: Source, body: Node, name: bytes) -> bool:
    return any(n.type == "identifier" and n.text == name and written_at(src.text, n.start_byte, n.end_byte)
               for n in walk(body))


def _as_statement(src: Source, stmt: Node, callee: _Callee, args: list[Node], target: bytes | None) -> Edit | None:
    """Replace `stmt` (`f(a);`, `x = f(a);`, `T x = f(a);` or `return f(a);`) by a block."""
    bind = _bindings(src, callee, args)
    if bind is None or (target not in (None, b"return") and target in _idents(callee.body)):
        return None
    body = callee.body
    last = body.named_children[-1] if body.named_children else None
    returns = callee.return_nodes
    if target == b"return":
        edits = []
    elif not returns or returns == [last]:
        edits = [Edit(r.start_byte, r.end_byte, _assign(r, target, False)) for r in returns]
    elif any(_in_loop(r, body) for r in returns):
        return None
    else:
        edits = [Edit(r.start_byte, r.end_byte, b"{ " + _assign(r, target, True) + b" }") for r in returns]
    inner = apply(callee.src.text[body.start_byte + 1:body.end_byte - 1],
                  [Edit(e.start - body.start_byte - 1, e.end - body.start_byte - 1, e.replacement) for e in edits])
    if returns and returns != [last] and target != b"return":
        inner = b"do {" + inner + b"} while (0);"
    return Edit(stmt.start_byte, stmt.end_byte, b"{ " + bind + inner + b"}")


def _assign(ret: Node, target: bytes | None, jump: bool) -> bytes:
    value = ret.named_children[0].text if ret.named_children else None
    text = (target + b" = " + value + b";") if value is not None and target else (value + b";" if value else b"")
    return text + (b" break;" if jump else b"")


def _in_loop(node: Node, body: Node) -> bool:
    node = node.parent
    while node is not None and node != body:
        if node.type in _LOOPS:
            return True
        node = node.parent
    return False


def _as_expression(src: Source, call: Node, callee: _Callee, args: list[Node]) -> Edit | None:
    """`f(a)` in an expression, body `{ return e; }`: `((R)(e'))` with each parameter replaced by
    its argument, cast to the parameter's type when it is taken by value."""
    stmts = callee.body.named_children
    if len(stmts) != 1 or stmts[0].type != "return_statement" or not stmts[0].named_children \
            or not callee.returns or callee.returns == b"void" or len(args) != len(callee.params):
        return None
    # an `auto` parameter has the argument's own type (decayed): the argument stands as it is,
    # where a cast to `auto` would not compile; so does a deduced return type's value
    expr = stmts[0].named_children[0]
    uses = Counter(n.text for n in walk(expr) if n.type == "identifier")
    edits = []
    for p, name, arg in zip(callee.params, callee.names, args):
        if uses[name] != 1 and arg.type not in _PLAIN:
            return None  # would evaluate the argument twice, or drop its side effects
        decl = p.child_by_field_name("declarator")
        text = callee.src.text
        type_ = text[p.start_byte:decl.start_byte] + text[decl.start_byte:decl.end_byte].replace(name, b"")
        if decl.type == "reference_declarator" or placeholder(p):
            if placeholder(p) and _written(callee.src, callee.body, name):
                return None  # the copy was written: the argument would be
            value = b"(" + arg.text + b")"
        elif type_.strip() == b"int" and _INT_LITERAL.match(arg.text) and int(arg.text) < 2 ** 31:
            value = arg.text  # already an int: the cast would only cost bytes
        elif _cast_to(arg, type_.strip()):
            value = arg.text  # cast by an outer inlining already
        else:
            value = b"((" + type_ + b")(" + arg.text + b"))"
        edits += [Edit(n.start_byte - expr.start_byte, n.end_byte - expr.start_byte, value)
                  for n in walk(expr) if n.type == "identifier" and n.text == name
                  and not (n.parent.type == "field_expression" and n.parent.child_by_field_name("field") == n)]
    value = apply(expr.text, edits)
    return Edit(call.start_byte, call.end_byte,
                b"((" + callee.cast + b")(" + value + b"))" if callee.cast is not None else b"(" + value + b")")


def _cast_to(arg: Node, type_: bytes) -> bool:
    """Whether `arg` is `((type_)(...))`."""
    inner = arg.named_children[0] if arg.type == "parenthesized_expression" and arg.named_children else None
    return inner is not None and inner.type == "cast_expression" and inner.child_by_field_name("type").text == type_
