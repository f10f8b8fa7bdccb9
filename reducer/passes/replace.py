"""Replacement passes, for when deletion has reached its fixpoint (Vulcan's, OOPSLA'23): a call
made to another function of the file, an expression or statement replaced by a smaller one of
the same kind from elsewhere in the file, a type by a shorter type the file already names.

Deletion stops at a local minimum: a chain `snapshot -> make_record -> Record::encode ->
encode_one -> to_wire(f)` is needed whole while each link calls the next, and no deletion of one
link keeps the diagnostic. A replacement jumps over links: `make_record(s.at)` made
`to_wire(s.at)` leaves `make_record` and `Record` unused, and the deletion passes take them.

The passes run in the schedule's replacement stage (Schedule.replace), once a sweep of the main
passes removes nothing; an accepted replacement sends the run back to the main sweeps. Every
item makes the file smaller in bytes and no bigger in tokens: a replacement by as many tokens
is only proposed when it takes away the last use of a name the file declares, which is what
feeds the deletion passes. Candidates must look up no name a function, block, class or
template declares unless one around the site does (`to_wire(f)` is no candidate where no `f`
is in scope). Level k holds the k-th alternative of every site (as in `hoist`), most likely
first, and at most a few per site: most candidates past the fixpoint fail, so they are tried
one at a time (`max_chunk = 1`), and every one is a test.
"""
from __future__ import annotations

import bisect
import functools
from collections import Counter
from typing import NamedTuple

from tree_sitter import Node

from ..text.edits import Item
from ..text.source import Source
from .base import Pass
from .cxx import elements, kernel_head, simple_name, spaced
from .folding import lookups, scope_of
from .names import declaration_counts

# Expressions a site may be and a candidate may come from.
_EXPRESSIONS = frozenset({
    "identifier", "qualified_identifier", "field_expression", "subscript_expression", "call_expression",
    "binary_expression", "unary_expression", "pointer_expression", "parenthesized_expression",
    "conditional_expression", "cast_expression", "compound_literal_expression", "update_expression",
    "assignment_expression", "sizeof_expression", "new_expression", "number_literal", "string_literal",
    "char_literal", "true", "false", "nullptr", "this", "lambda_expression", "template_function",
    "concatenated_string", "user_defined_literal",
})
# What may stand where a value is written (`x = ...`, `++x`, `&x`).
_LVALUES = frozenset({"identifier", "qualified_identifier", "field_expression", "subscript_expression",
                      "pointer_expression", "parenthesized_expression"})
_STRINGS = frozenset({"string_literal", "concatenated_string", "raw_string_literal"})
# What a statement's expression may become: one without effects there is the statement deleted,
# which deletion has tried already at the fixpoint.
_EFFECTS = frozenset({"call_expression", "assignment_expression", "update_expression", "new_expression"})
# Never candidates: a constant in an expression's place is expr-constant's (its folded value, 0, 1)
_LITERALS = frozenset({"number_literal", "char_literal", "true", "false", "nullptr", "user_defined_literal"})
# (parent type, field) where a child expression is read; None: any child without a field. A loop's
# condition and update are not among them: what stands there decides whether the loop ends, and a
# loop that never does is undefined behaviour the oracle need not be asked about.
_READ_AT = frozenset({
    ("init_declarator", "value"), ("argument_list", None), ("initializer_list", None), ("initializer_pair", "value"),
    ("binary_expression", "left"), ("binary_expression", "right"), ("condition_clause", "value"),
    ("conditional_expression", "condition"),
    ("conditional_expression", "consequence"), ("conditional_expression", "alternative"),
    ("return_statement", None), ("assignment_expression", "right"), ("subscript_argument_list", None),
    ("parenthesized_expression", None), ("unary_expression", "argument"), ("cast_expression", "value"),
    ("expression_statement", None), ("for_range_loop", "right"),
    ("comma_expression", "left"), ("comma_expression", "right"), ("if_statement", "condition"),
    ("throw_statement", None),
    ("delete_expression", None), ("compound_literal_expression", "value"), ("subscript_expression", "argument"),
})
_WRITTEN_AT = frozenset({("assignment_expression", "left"), ("update_expression", "argument"),
                         ("pointer_expression", "argument")})
# Subtrees never entered: constant contexts, unevaluated operands, what does not parse.
_OPAQUE = frozenset({
    "template_argument_list", "array_declarator", "launch_bounds", "attribute_specifier", "attribute_declaration",
    "attribute", "static_assert_declaration", "enumerator_list", "template_parameter_list", "bitfield_clause",
    "preproc_arg", "preproc_if", "preproc_elif", "decltype", "alignof_expression", "requires_clause",
    "requires_expression", "ERROR", "case_statement_value",
})
_STATEMENTS = frozenset({
    "expression_statement", "return_statement", "if_statement", "for_statement", "for_range_loop",
    "while_statement", "do_statement", "compound_statement", "switch_statement", "break_statement",
    "continue_statement", "throw_statement",
})
_BODIES = frozenset({("for_statement", "body"), ("for_range_loop", "body"), ("while_statement", "body"),
                     ("do_statement", "body"), ("if_statement", "consequence"), ("else_clause", None),
                     ("compound_statement", None), ("function_definition", "body")})
_TYPE_HOLDERS = frozenset({"declaration", "field_declaration", "parameter_declaration",
                           "optional_parameter_declaration", "variadic_parameter_declaration", "function_definition",
                           "type_descriptor", "for_range_loop"})
_DEFINING = frozenset({"struct_specifier", "class_specifier", "union_specifier", "enum_specifier"})
_FUNCTION_NODES = frozenset({"function_definition", "declaration", "field_declaration"})

EXPRESSION_ALTERNATIVES = 3   # per expression site
STATEMENT_ALTERNATIVES = 2    # per statement site
CALL_ALTERNATIVES = 3         # per call
TYPE_ALTERNATIVES = 3         # per type
SCAN = 64                     # candidates looked at per site and group, at most (a big file stays linear)
GAIN_SHARE = 50               # a replacement must promise a fiftieth of the file's tokens (_Index.needed)


class _Candidate(NamedTuple):
    text: bytes
    kind: str          # the node type it was found as
    tokens: int
    start: int         # where it first occurs
    needs: frozenset   # the names it looks up, less those it declares itself
    type: bytes | None = None  # its type where it first occurs, when the file says (`_Index.type_of_expression`)


class _Site(NamedTuple):
    node: Node
    kind: str          # "value", "lvalue", "object" (of `x.f`), "statement", "type", "type-argument"


class _Index:
    """What the replacement passes need of one file version, computed once: identifier tokens
    by name, how often each name is declared, which names some function, block, class or
    template declares (and so mean something only inside it), and which names only ever
    declare values."""

    def __init__(self, src: Source):
        self.src = src
        self.where: dict[bytes, list[int]] = {}
        for tok in src.tokens:
            if tok.kind == "ident":
                self.where.setdefault(src.text[tok.start:tok.end], []).append(tok.start)
        self._starts = [t.start for t in src.tokens]
        self.declared: Counter = Counter()
        self._sizes: Counter = Counter()  # name -> tokens of its declarations
        self.tokens = len(src.tokens)
        types: set[bytes] = set()
        values: set[bytes] = set()
        self._by_scope: dict[int, frozenset] = {}
        scoped: set[bytes] = set()
        # scope node id (None: namespace scope) -> variable -> its declared type (None: declared twice)
        self._types: dict[int | None, dict[bytes, bytes | None]] = {}
        for node in src.nodes():
            if node.type in _SCOPES:
                self._by_scope[node.id] = own = frozenset(_declared_by(node))
                scoped |= own
            for name, is_type in _declared_names(node):
                self.declared[name] += 1
                (types if is_type else values).add(name)
                # what deleting the declaration takes, once nothing else names it (a loop stays)
                unit = node.parent if node.parent is not None and node.parent.type == "template_declaration" \
                    else node
                if node.type != "for_range_loop":
                    self._sizes[name] += self.tokens_in(unit.start_byte, unit.end_byte)
            for name, type_ in _variables(node):
                scope = _scope_of_declaration(node)
                known = self._types.setdefault(scope.id if scope is not None else None, {})
                known[name] = type_ if known.get(name, type_) == type_ else None
        self.scoped = frozenset(scoped)
        self.values_only = frozenset(values - types)
        self.types_only = frozenset(types - values)
        self._classes: dict[bytes, int] = {}            # class name -> its body's node id
        self._returns: dict[bytes, bytes | None] = {}   # free function -> its return type
        for node in src.nodes():
            if node.type in _DEFINING and (body := node.child_by_field_name("body")) is not None:
                ident = node.child_by_field_name("name")
                if ident is not None:
                    self._classes[ident.text] = body.id if ident.text not in self._classes else None
            elif node.type == "function_definition" and node.child_by_field_name("type") is not None:
                declarator = node.child_by_field_name("declarator")
                ident = declarator.child_by_field_name("declarator") if declarator is not None \
                    and declarator.type == "function_declarator" else None
                if ident is not None and ident.type == "identifier":
                    type_ = _spelled(node.child_by_field_name("type").text)
                    self._returns[ident.text] = type_ if self._returns.get(ident.text, type_) == type_ else None
        self._enclosing: dict[int, frozenset] = {}

    def tokens_in(self, start: int, end: int) -> int:
        return bisect.bisect_left(self._starts, end) - bisect.bisect_left(self._starts, start)

    def frees(self, start: int, end: int) -> int:
        """The tokens of the declarations whose names have their last uses in [start, end):
        replaced, those declarations are left unused (0: none)."""
        seen, freed = set(), 0
        for tok in self.src.tokens[bisect.bisect_left(self._starts, start):]:
            if tok.start >= end:
                break
            if tok.kind != "ident":
                continue
            name = self.src.text[tok.start:tok.end]
            if name in seen or not self.declared.get(name):
                continue
            seen.add(name)
            where = self.where[name]
            inside = bisect.bisect_left(where, end) - bisect.bisect_left(where, start)
            if len(where) - inside <= self.declared[name]:
                freed += self._sizes[name]
        return freed

    def most_tokens(self, start: int, end: int) -> int:
        """The most tokens a replacement of [start, end) may have: never more than it replaces,
        and fewer by what it must gain, less what deleting the declarations it leaves unused
        gains (`frees`). The gain asked is a fiftieth of the file's tokens, at least one: past
        the deletion fixpoint an accepted replacement costs a sweep of the main passes, about a
        test per token of the file, so a few tokens are not worth it on a big file (RESULTS,
        issue 32)."""
        tokens = self.tokens_in(start, end)
        need = max(1, self.tokens // GAIN_SHARE)
        return min(tokens, tokens - need + self.frees(start, end))

    def enclosing(self, at: Node) -> frozenset:
        """The names the scopes around `at` declare."""
        found = self._enclosing.get(at.id)
        if found is None:
            names: set[bytes] = set()
            node = at.parent
            while node is not None:
                names |= self._by_scope.get(node.id, frozenset())
                node = node.parent
            found = self._enclosing[at.id] = frozenset(names)
        return found

    def visible(self, needs: frozenset, at: Node) -> bool:
        """Whether every name in `needs` means something at `at`: declared in no function, block,
        class or template of the file, or in one around `at`."""
        local = needs & self.scoped
        return not local or local <= self.enclosing(at)

    def type_of(self, name: bytes, at: Node) -> bytes | None:
        """The declared type of the variable `name` names at `at` (`char*`, `int[]`), None when
        unknown (not a variable the file declares, or declared twice with other types)."""
        node = at.parent
        while node is not None:
            found = self._types.get(node.id)
            if found is not None and name in found:
                return found[name]
            node = node.parent
        return self._types.get(None, {}).get(name)

    def type_of_expression(self, node: Node) -> bytes | None:
        """The type of an expression as far as the file says, in the spelling `_variables` gives
        (`int`, `char*`, `Tile`), None when it does not: variables, literals, subscripts and
        dereferences of pointers and arrays, members of the file's classes, calls of its free
        functions, comparisons, and arithmetic on operands of one type."""
        t = node.type
        if t == "identifier":
            return self.type_of(node.text, node)
        if t == "number_literal":
            text = node.text.lower()
            if text.startswith(b"0x") or not any(c in text for c in b".e"):
                return b"unsigned" if b"u" in text.lstrip(b"0x") else b"int"
            return b"float" if text.endswith(b"f") else b"double"
        if t in ("true", "false"):
            return b"bool"
        if t in ("parenthesized_expression", "assignment_expression") and node.named_children:
            return self.type_of_expression(node.named_children[0])
        if t in ("subscript_expression", "pointer_expression"):
            inner = node.child_by_field_name("argument")
            of = self.type_of_expression(inner) if inner is not None else None
            if of is None:
                return None
            if t == "pointer_expression" and node.children and node.children[0].type == "&":
                return of + b"*"
            return of[:-2] if of.endswith(b"[]") else of[:-1] if of.endswith(b"*") else None
        if t == "field_expression":
            inner, field = node.child_by_field_name("argument"), node.child_by_field_name("field")
            of = self.type_of_expression(inner) if inner is not None else None
            if of is None or field is None:
                return None
            op = node.child_by_field_name("operator")
            of = of[:-1] if op is not None and op.type == "->" and of.endswith(b"*") else of
            body = self._classes.get(of)
            return self._types.get(body, {}).get(field.text) if body is not None else None
        if t == "call_expression":
            callee = node.child_by_field_name("function")
            return self._returns.get(callee.text) if callee is not None and callee.type == "identifier" else None
        if t == "binary_expression":
            op = node.child_by_field_name("operator")
            if op is not None and op.type in ("<", ">", "<=", ">=", "==", "!=", "&&", "||"):
                return b"bool"
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            a = self.type_of_expression(left) if left is not None else None
            return a if a is not None and right is not None and a == self.type_of_expression(right) else None
        if t == "cast_expression":
            type_ = node.child_by_field_name("type")
            return _spelled(type_.text) if type_ is not None else None
        return None


@functools.lru_cache(maxsize=2)
def _index(src: Source) -> _Index:
    return _Index(src)


# Scopes other than namespaces (a name they declare means nothing outside them)
_SCOPES = frozenset({"compound_statement", "field_declaration_list", "function_definition", "template_declaration",
                     "lambda_expression", "for_statement", "for_range_loop", "catch_clause", "requires_expression",
                     "if_statement", "while_statement", "switch_statement"})
_PARAMETERS = frozenset({"parameter_declaration", "optional_parameter_declaration", "variadic_parameter_declaration"})
_TYPE_PARAMETERS = frozenset({"type_parameter_declaration", "optional_type_parameter_declaration",
                              "variadic_type_parameter_declaration"})


def _declarators(node: Node) -> list[Node]:
    return [c for i, c in enumerate(node.children) if node.field_name_for_child(i) == "declarator"]


def _declared_by(scope: Node) -> set[bytes]:
    """The names `scope` itself declares, not those of the scopes nested in it: a block's
    locals, a loop's variable, a function's or lambda's parameters, a template's parameters, a
    class's members (methods, nested classes and aliases included)."""
    names: set[bytes] = set()
    stack = list(scope.children)
    if scope.type == "template_declaration":  # its parameters; the entity's name is the enclosing scope's
        stack = [c for c in stack if c.type == "template_parameter_list"]
    elif scope.type == "for_range_loop":
        names.add(simple_name(scope.child_by_field_name("declarator")))
    while stack:
        node = stack.pop()
        if node.type in _PARAMETERS or node.type in ("declaration", "field_declaration", "init_declarator"):
            names.update(simple_name(d) for d in _declarators(node))
        elif node.type in _TYPE_PARAMETERS:
            names.update(c.text for c in node.named_children if c.type == "type_identifier")
        elif node.type in ("alias_declaration", "type_definition"):
            names.add(simple_name(node.child_by_field_name("name") or node.child_by_field_name("declarator")))
        elif node.type == "function_definition":
            names.add(simple_name(node.child_by_field_name("declarator")))
        elif node.type in _DEFINING:
            name = node.child_by_field_name("name")
            names.add(name.text if name is not None else None)
        elif node.type == "structured_binding_declarator":
            names.update(c.text for c in node.named_children if c.type == "identifier")
        if node.type in _SCOPES or node.type in _DEFINING:
            continue  # a nested scope: seen when it encloses a site
        stack.extend(node.children)
    names.discard(None)
    return names


def _variables(node: Node) -> list[tuple[bytes, bytes]]:
    """The variables (parameters, fields, loop variables) `node` declares, each with its type as
    written, less qualifiers and spaces, with the declarator's `*` and `[]` (a reference is
    the type it refers to): `char *lds` -> (b"lds", b"char*")."""
    if node.type not in _PARAMETERS and node.type not in ("declaration", "field_declaration", "for_range_loop"):
        return []
    type_ = node.child_by_field_name("type")
    if type_ is None:
        return []
    base = _spelled(type_.text)
    out = []
    for d in _declarators(node):
        shape = b""
        while d is not None and d.type not in ("identifier", "field_identifier"):
            if d.type == "pointer_declarator":
                shape = b"*" + shape
            elif d.type == "array_declarator":
                shape += b"[]"
            elif d.type in ("function_declarator", "abstract_function_declarator"):
                d = None  # a function, not a variable
                break
            inner = d.child_by_field_name("declarator")
            d = inner if inner is not None else next(
                (c for c in d.named_children if c.type not in ("type_qualifier", "number_literal")), None) \
                if d.type in ("reference_declarator", "parenthesized_declarator", "variadic_declarator") else None
        if d is not None:
            out.append((d.text, base + shape))
    return out


def _spelled(type_text: bytes) -> bytes:
    """A type as `_variables` and `type_of_expression` compare them: no qualifiers, no spaces."""
    return b"".join(w for w in type_text.replace(b"*", b" * ").split() if w not in (b"const", b"volatile"))


def _scope_of_declaration(node: Node) -> Node | None:
    """The scope a declaration's names belong to: the nearest function, block, class or template
    around it (a parameter's function; a loop's own variable: the loop), None at namespace scope."""
    scope = node if node.type == "for_range_loop" else node.parent
    while scope is not None and scope.type not in _SCOPES:
        scope = scope.parent
    return scope


def _declared_names(node: Node) -> list[tuple[bytes, bool]]:
    """The names `node` declares, each with whether it is a type (else a value)."""
    t = node.type
    if t in _DEFINING:
        name = node.child_by_field_name("name")
        return [(name.text, True)] if name is not None and node.child_by_field_name("body") is not None else []
    if t in _TYPE_PARAMETERS:
        return [(c.text, True) for c in node.named_children if c.type == "type_identifier"]
    if t in ("alias_declaration", "type_definition"):
        named = simple_name(node.child_by_field_name("name") or node.child_by_field_name("declarator"))
        return [(named, True)] if named is not None else []
    if t in _PARAMETERS or t in ("declaration", "field_declaration", "function_definition"):
        names = []
        for d in _declarators(node):
            named = simple_name(d.child_by_field_name("declarator") if d.type == "init_declarator" else d)
            if named is not None:
                names.append((named, False))
        return names
    if t == "for_range_loop":
        named = simple_name(node.child_by_field_name("declarator"))
        return [(named, False)] if named is not None else []
    if t == "enumerator":
        name = node.child_by_field_name("name")
        return [(name.text, False)] if name is not None else []
    return []


def _own_names(node: Node) -> frozenset:
    """The names `node`'s text looks up, less those it declares itself (a statement's locals,
    a lambda's parameters)."""
    needs = lookups(node.text)
    if node.type in _STATEMENTS or node.type == "lambda_expression":
        needs -= set(declaration_counts(node))
    return frozenset(needs)


def _walk_sites(src: Source) -> list[_Site]:
    """Expression and statement sites in source order, outside constant and unevaluated contexts."""
    sites: list[_Site] = []
    stack: list[Node] = [src.root]
    while stack:
        node = stack.pop()
        children = node.children
        stack.extend(c for c in reversed(children) if c.type not in _OPAQUE)
        for i, child in enumerate(children):
            if child.type in _OPAQUE or child.has_error or not child.is_named:
                continue
            field = node.field_name_for_child(i)
            key = (node.type, field) if field is not None else (node.type, None)
            if child.type in _EXPRESSIONS:
                if key in _WRITTEN_AT:
                    sites.append(_Site(child, "lvalue"))
                elif key == ("field_expression", "argument"):
                    sites.append(_Site(child, "object"))
                elif key in _READ_AT:
                    sites.append(_Site(child, "value"))
            elif child.type in _STATEMENTS and key in _BODIES:
                sites.append(_Site(child, "statement"))
    sites.sort(key=lambda s: (s.node.start_byte, -s.node.end_byte))
    return sites


def _pool(src: Source, sites: list[_Site], kinds: tuple[str, ...]) -> list[_Candidate]:
    """Distinct texts of the sites of `kinds`, each where it first occurs. An object whose member
    is read is a value too (`to_wire(s.at)` of `to_wire(s.at).encode()`), but not a name the
    file does not declare (`threadIdx` of `threadIdx.x`: a struct of the HIP headers)."""
    index, seen, pool = _index(src), set(), []
    for site in sites:
        if site.kind not in kinds and not (site.kind == "object" and "value" in kinds):
            continue
        node = site.node
        if node.text in seen:
            continue
        type_ = index.type_of_expression(node)
        if site.kind == "object" and node.type == "identifier" and type_ is None:
            continue
        seen.add(node.text)
        pool.append(_Candidate(node.text, node.type, index.tokens_in(node.start_byte, node.end_byte),
                               node.start_byte, _own_names(node), type_))
    return pool


class _Pool:
    """Candidates grouped by type (None: unknown) and node type, each group in the order tried:
    fewest tokens, fewest bytes, first in the file."""

    def __init__(self, candidates: list[_Candidate], index: _Index):
        self.groups: dict[tuple[bytes | str | None, str | None], list[_Candidate]] = {}  # "*": any type
        for c in sorted(candidates, key=lambda c: (c.tokens, len(c.text), c.start)):
            if c.kind == "identifier" and c.text in index.types_only:
                continue  # `bf16x4_t` of `__builtin_bit_cast(bf16x4_t, v)`: a type, not a value
            for key in ((c.type, c.kind), (c.type, None), ("*", c.kind), ("*", None)):
                self.groups.setdefault(key, []).append(c)

    def ranked(self, site: Node, index: _Index, fits, limit: int) -> list[bytes]:
        """The `limit` likeliest candidates for `site`: where the file says the site's type, of
        that type first, then of unknown types (a known other type never); within each, of the
        site's own node type first; then fewest tokens, fewest bytes, first in the file. Each
        smaller than the site in bytes, worth it in tokens (`_Index.most_tokens`), in scope
        there, and not one of the site's own parts (hoist's). At most SCAN candidates that fit
        are looked at per group, which keeps a big file's enumeration linear."""
        mine = index.type_of_expression(site)
        size = site.end_byte - site.start_byte
        most = index.most_tokens(site.start_byte, site.end_byte)  # a candidate's tokens that still pay
        parts = {site.text, *_parts(site)}
        found: list[bytes] = []
        for type_ in ((mine, None) if mine is not None else ("*",)):
            for same_kind in (True, False):
                looked = 0
                for c in self.groups.get((type_, site.type if same_kind else None), []):
                    if c.tokens > most or len(found) == limit or looked == SCAN:
                        break
                    if (not same_kind and c.kind == site.type) or c.text in parts or len(c.text) >= size \
                            or c.text in found or not fits(c):
                        continue
                    looked += 1
                    if index.visible(c.needs, site):
                        found.append(c.text)
        return found


def _parts(node: Node) -> set[bytes]:
    """What hoist puts in a node's place: its operands, a call's arguments, a block's statement."""
    parts = {c.text for c in node.named_children}
    args = node.child_by_field_name("arguments") if node.type == "call_expression" else None
    if args is not None:
        parts |= {a.text for a in args.named_children}
    return parts


class _Alternatives(Pass):
    """A pass whose level k holds the k-th alternative of each site: one chunk never mixes two
    choices for one site. Subclasses give (start, end, alternatives) per site, computed once
    per file version."""

    needs_tree = True
    max_chunk = 1

    def items(self, src: Source, level: int) -> list[Item] | None:
        if src.root is None:
            return None
        items: list[Item] = []
        for start, end, alternatives in self.alternatives(src):
            if level < len(alternatives):
                edit = spaced(src.text, start, end, alternatives[level])
                if len(edit.replacement) < end - start:
                    items.append((edit,))
        return items or None

    def alternatives(self, src: Source) -> list[tuple[int, int, list[bytes]]]:
        raise NotImplementedError


class ReplaceSubtrees(_Alternatives):
    """An expression by a smaller expression, a statement by a smaller statement, from elsewhere
    in the file. What is written (`x = `, `++x`, `&x`) takes only what can be written; a string
    only a string; a statement's expression only a call, assignment or update. Constants are
    expr-constant's, and a node's own operands hoist's."""

    name = "replace-subtrees"
    summary = "replace an expression or statement by a smaller one of the same kind from elsewhere in the file"

    def alternatives(self, src: Source) -> list[tuple[int, int, list[bytes]]]:
        return _subtree_alternatives(src)


@functools.lru_cache(maxsize=2)
def _subtree_alternatives(src: Source) -> list[tuple[int, int, list[bytes]]]:
    index, sites = _index(src), _walk_sites(src)
    values = _Pool([c for c in _pool(src, sites, ("value", "lvalue")) if c.kind not in _LITERALS], index)
    statements = _Pool([c for c in _pool(src, sites, ("statement",)) if c.tokens > 2], index)  # `{}`, `;`: deletions
    out = []
    for site in sites:
        node = site.node
        if site.kind == "statement":
            alts = statements.ranked(node, index, lambda c: True, STATEMENT_ALTERNATIVES)
        else:
            string, effect = node.type in _STRINGS, node.parent.type == "expression_statement"

            def fits(c: _Candidate, lvalue=site.kind in ("lvalue", "object"), string=string, effect=effect) -> bool:
                return (c.kind in _STRINGS) == string and (not lvalue or c.kind in _LVALUES) \
                    and (not effect or c.kind in _EFFECTS)

            alts = values.ranked(node, index, fits, EXPRESSION_ALTERNATIVES)
        if alts:
            out.append((node.start_byte, node.end_byte, alts))
    return out


class _Function(NamedTuple):
    name: bytes
    scope: tuple[bytes, ...]   # namespaces around it
    owner: int | None          # the class body it is a member of (node id), None: a free function
    least: int                 # parameters without a default
    most: float                # parameters (inf: variadic)
    start: int


def _functions(src: Source) -> list[_Function]:
    """Functions and function templates the file declares by a plain name: free ones, and
    members of a class body. Kernels, `main`, operators, constructors and destructors are left
    out: nothing calls them like that."""
    out, seen = [], set()
    for node in src.nodes():
        if node.type not in _FUNCTION_NODES:
            continue
        declarator = node.child_by_field_name("declarator")
        while declarator is not None and declarator.type in ("pointer_declarator", "reference_declarator"):
            declarator = declarator.named_children[-1] if declarator.named_children else None
        if declarator is None or declarator.type != "function_declarator":
            continue
        name_node = declarator.child_by_field_name("declarator")
        if name_node is None or name_node.type not in ("identifier", "field_identifier"):
            continue
        name = name_node.text
        if name == b"main" or kernel_head(node) or any(c.text == b"__global__" for c in node.children):
            continue
        parent = node.parent.parent if node.parent is not None and node.parent.type == "template_declaration" \
            else node.parent
        if parent is None:
            continue
        if parent.type == "field_declaration_list":
            klass = parent.parent.child_by_field_name("name") if parent.parent is not None else None
            if klass is not None and klass.text == name:
                continue  # a constructor
            owner = parent.id
        elif parent.type in ("translation_unit", "declaration_list"):
            owner = None
        else:
            continue
        params = declarator.child_by_field_name("parameters")
        least, most = 0, 0.0
        for p in elements(params) if params is not None else []:
            if p.type == "variadic_parameter_declaration" or p.text == b"...":
                most = float("inf")
            elif p.type == "optional_parameter_declaration":
                most += 1
            elif p.type == "parameter_declaration" and p.text != b"void":
                least, most = least + 1, most + 1
        if params is not None and any(c.type == "..." for c in params.children):
            most = float("inf")
        key = (name, scope_of(node), owner)
        if key in seen:
            continue
        seen.add(key)
        out.append(_Function(name, scope_of(node), owner, least, most, node.start_byte))
    return out


def _class_body(node: Node) -> Node | None:
    node = node.parent
    while node is not None and node.type != "field_declaration_list":
        node = node.parent
    return node


class ReplaceCalls(_Alternatives):
    """`f(args)` -> `g(args)` for another function `g` the file declares that is in scope where
    the call is: a free function (qualified when its namespace does not enclose the call), or
    a member of the class around the call; `obj.m(args)` -> `obj.m2(args)` for another member
    `m2` of a class that declares `m`, or -> `g(args)` for a free function. Functions that take
    as many arguments as the call gives come first, then the shortest."""

    name = "replace-calls"
    summary = "call another function in scope instead: `acc.add_scaled(x)` -> `to_float(x)`"

    def alternatives(self, src: Source) -> list[tuple[int, int, list[bytes]]]:
        return _call_alternatives(src)


@functools.lru_cache(maxsize=2)
def _call_alternatives(src: Source) -> list[tuple[int, int, list[bytes]]]:
    index = _index(src)
    functions = sorted(_functions(src), key=lambda f: (len(f.name), f.start))  # shortest first
    free = [f for f in functions if f.owner is None]
    members: dict[int, list[_Function]] = {}
    owners: dict[bytes, set[int]] = {}
    for f in functions:
        if f.owner is not None:
            members.setdefault(f.owner, []).append(f)
            owners.setdefault(f.name, set()).add(f.owner)
    out = []
    stack = [src.root]
    while stack:
        node = stack.pop()
        stack.extend(reversed([c for c in node.children if c.type not in _OPAQUE]))
        if node.type != "call_expression" or node.has_error:
            continue
        callee, args = node.child_by_field_name("function"), node.child_by_field_name("arguments")
        if callee is None or args is None:
            continue
        count, here = len(elements(args)), scope_of(node)
        if callee.type == "field_expression":  # `obj.m(...)`: another member of a class with an `m`, or a free function
            field = callee.child_by_field_name("field")
            if field is None or field.type != "field_identifier":
                continue
            siblings = sorted({f for owner in sorted(owners.get(field.text, ())) for f in members[owner]
                               if f.name != field.text}, key=lambda f: (len(f.name), f.start))
            sites = [(field, [(f, f.name) for f in siblings]), (callee, [(f, _reference(f, here)) for f in free])]
        elif callee.type in ("identifier", "qualified_identifier", "template_function"):
            body = _class_body(node)
            own = members.get(body.id, []) if body is not None else []
            name = simple_name(callee)
            choices = [(f, f.name) for f in own] + [(f, _reference(f, here)) for f in free]
            sites = [(callee, [(f, text) for f, text in choices if f.name != name])]
        else:
            continue
        for replaced, choices in sites:
            size = replaced.end_byte - replaced.start_byte
            found: list[tuple[tuple[bool, int, int, int], bytes]] = []
            most = index.most_tokens(replaced.start_byte, replaced.end_byte)
            for f, text in choices:
                if len(found) == SCAN:
                    break
                if text is None or len(text) >= size:
                    continue
                mine = 1 if text == f.name else 2 * len(f.scope) + 1  # `a::b::f`
                if mine <= most:
                    found.append(((not f.least <= count <= f.most, mine, len(text), f.start), text))
            texts: list[bytes] = []
            for _, text in sorted(found):
                if text not in texts and len(texts) < CALL_ALTERNATIVES:
                    texts.append(text)
            if texts:
                out.append((replaced.start_byte, replaced.end_byte, texts))
    out.sort()
    return out


def _reference(f: _Function, here: tuple[bytes, ...]) -> bytes | None:
    """How code in the namespaces `here` names the free function `f`: its plain name where its
    namespaces enclose that code, else qualified with them (None inside an unnamed one)."""
    if here[:len(f.scope)] == f.scope:
        return f.name
    if b"" in f.scope:
        return None
    return b"::".join(f.scope) + b"::" + f.name


class ReplaceTypes(_Alternatives):
    """A template argument by another type the file names, and the type of a declaration by a
    shorter one: `View<float, Shape<4, 4>>` -> `View<float, int>`, `Accum<T> acc;` -> `T acc;`.
    The shortest first."""

    name = "replace-types"
    summary = "replace a template argument or a declared type by a shorter type the file already names"

    def alternatives(self, src: Source) -> list[tuple[int, int, list[bytes]]]:
        return _type_alternatives(src)


def _type_sites(src: Source) -> list[_Site]:
    """Types of declarations and template type arguments, outside what does not parse."""
    sites = []
    for node in src.nodes():
        if node.has_error and node.type != "translation_unit":
            continue
        if node.type == "template_argument_list":
            sites += [_Site(c, "type-argument") for c in node.named_children if c.type == "type_descriptor"]
        elif node.type in _TYPE_HOLDERS:
            type_ = node.child_by_field_name("type")
            if type_ is not None and type_.type not in _DEFINING and type_.type != "placeholder_type_specifier":
                sites.append(_Site(type_, "type"))
    sites.sort(key=lambda s: (s.node.start_byte, -s.node.end_byte))
    return sites


@functools.lru_cache(maxsize=2)
def _type_alternatives(src: Source) -> list[tuple[int, int, list[bytes]]]:
    index, sites = _index(src), _type_sites(src)
    seen: dict[bytes, _Candidate] = {}
    for site in sites:
        for node in (site.node, site.node.child_by_field_name("type") if site.kind == "type-argument" else None):
            if node is None or node.text in seen or node.type in _DEFINING:
                continue
            needs = frozenset(lookups(node.text))
            if needs & index.values_only:  # `I` of `std::get<I>`: a value, not a type
                continue
            seen[node.text] = _Candidate(node.text, "descriptor" if node.type == "type_descriptor" else "type",
                                         index.tokens_in(node.start_byte, node.end_byte), node.start_byte, needs)
    pool = sorted(seen.values(), key=lambda c: (c.tokens, len(c.text), c.start))
    out = []
    for site in sites:
        node, argument = site.node, site.kind == "type-argument"
        size, most = node.end_byte - node.start_byte, index.most_tokens(node.start_byte, node.end_byte)
        alts: list[bytes] = []
        looked = 0
        for c in pool:
            if len(alts) == TYPE_ALTERNATIVES or c.tokens > most or looked == SCAN:
                break
            if c.text == node.text or len(c.text) >= size or not (argument or c.kind == "type"):
                continue
            looked += 1
            if index.visible(c.needs, node):
                alts.append(c.text)
        if alts:
            out.append((node.start_byte, node.end_byte, alts))
    return out
