"""Names and their uses, over the tree and the tokens: how often the file declares a name, where
the name a declaration declares is used, which names a function or class body declares (an
expression naming one means nothing elsewhere), and whether a use writes the name. Shared by the
passes that replace a name by what it stands for or move a declaration (aliases, constants,
expr-constant, global-to-local, local-to-global, instantiate, inline)."""
from __future__ import annotations

import functools
import re
from bisect import bisect_left
from collections import Counter
from collections.abc import Iterator

from tree_sitter import Node

from ..text.lexer import tokenize
from ..text.source import Source, walk
from .cxx import DEFINE, call_arguments, directives, simple_name
from .folding import scope_of

_DECLARATORS = frozenset({"init_declarator", "parameter_declaration", "optional_parameter_declaration",
                          "variadic_parameter_declaration", "optional_type_parameter_declaration"})
# `typename T`, `class... Ts`: the name is a child without a field
_TYPE_PARAMETERS = frozenset({"type_parameter_declaration", "variadic_type_parameter_declaration"})


def declaration_counts(root: Node) -> Counter:
    """How often each name is declared under `root` (variables, parameters, aliases, fields,
    functions)."""
    return Counter(name for name, _ in declarations(root))


def declarations(root: Node) -> Iterator[tuple[bytes | None, Node]]:
    """Each name declared under `root`, with the node that declares it, in file order."""
    for node in walk(root):
        if node.type in ("alias_declaration", "type_definition"):
            yield simple_name(node.child_by_field_name("name") or node.child_by_field_name("declarator")), node
        elif node.type in _TYPE_PARAMETERS:
            yield _type_parameter(node), node
        elif node.type in _DECLARATORS or node.type == "function_declarator":
            yield simple_name(node.child_by_field_name("declarator") or node.child_by_field_name("name")), node
        elif node.type in ("field_declaration", "declaration"):
            for i, c in enumerate(node.children):
                if node.field_name_for_child(i) == "declarator" and c.type in ("identifier", "field_identifier"):
                    yield c.text, c


def uses(src: Source, name: bytes, decl: Node, counts: Counter) -> list[tuple[int, int]] | None:
    """Byte ranges of the uses of the `name` that `decl` declares: in the rest of its block for a
    local, in the whole file for a name declared once there; None when unsure."""
    scope = decl.parent
    if scope is not None and scope.type == "field_declaration_list" and counts[name] > 1:
        toks = src.tokens
        if any(src.text[t.start:t.end] == name and i and src.text[toks[i - 1].start:toks[i - 1].end] == b"::"
               for i, t in enumerate(toks)):
            return None  # `X::name` may be this member
    elif scope is None or scope.type != "compound_statement":
        return _ranges(src, name, decl, len(src.text), False) if counts[name] == 1 else None
    return _ranges(src, name, decl, scope.end_byte, True) if declaration_counts(scope)[name] == 1 else None


@functools.lru_cache(maxsize=4)
def macro_arguments(src: Source) -> list[tuple[int, int]]:
    """[start, end) of each argument list that a function-like macro the file defines is called
    with, nested ones merged: a macro may paste its argument anywhere (ck_tile's
    `TO_TUPLE_OF_SEQUENCE(impl, n, sizes)` into a lambda's capture list), so a name used there
    cannot be replaced by what it stands for."""
    text, toks = src.text, src.tokens
    macros = set()
    for start, end in directives(text):
        m = DEFINE.match(text[start:end])
        if m is not None and m.group(2) is not None:
            macros.add(m.group(1))
    spans: list[tuple[int, int]] = []
    i = 0
    while i + 1 < len(toks):
        t = toks[i]
        call = call_arguments(text, toks, i) if t.kind == "ident" and text[t.start:t.end] in macros else None
        if call is not None:
            spans.append((toks[i + 1].start, toks[call[1]].end))
            i = call[1]  # the arguments' own macro calls lie inside this span
        i += 1
    return spans


def _inside(spans: list[tuple[int, int]], pos: int) -> bool:
    k = bisect_left(spans, (pos + 1,)) - 1
    return k >= 0 and spans[k][0] <= pos < spans[k][1]


def _ranges(src: Source, name: bytes, decl: Node, limit: int, local: bool) -> list[tuple[int, int]] | None:
    """Uses of `name` up to `limit`, each widened over its qualifier (`S::kTaps`, `typename
    S::Mma`). A member access or a use before the declaration is another entity for a local,
    and makes a file-wide name unsure; so does a use in a macro's arguments (`macro_arguments`)."""
    toks, text, out = src.tokens, src.text, []
    in_macros = macro_arguments(src)

    def lex(k: int) -> bytes:
        return text[toks[k].start:toks[k].end]

    # a local's uses follow it: the tokens before are not read (a file's locals, each its scan)
    for i in range(bisect_left(toks, decl.end_byte, key=lambda t: t.start) if local else 0, len(toks)):
        t = toks[i]
        if t.start >= limit:
            break
        if t.kind != "ident" or lex(i) != name or decl.start_byte <= t.start < decl.end_byte:
            continue
        if t.start < decl.start_byte or (i and lex(i - 1) in (b".", b"->")):
            if local:
                continue
            return None
        if _inside(in_macros, t.start):
            return None
        j = i
        while j >= 2 and lex(j - 1) == b"::" and toks[j - 2].kind == "ident":
            j -= 2
        if j >= 1 and lex(j - 1) == b"::" and (j < 2 or toks[j - 2].kind != "ident" and lex(j - 2) not in (b">", b")")):
            j -= 1  # `::mfconv::bf16_t`: the global qualifier goes too (`::__bf16` names nothing)
        elif j >= 1 and lex(j - 1) == b"::":
            # `Adaptor<1, 2>::HiddenIndex`: a member of a specialisation, whose qualifier cannot go
            # with it (`Adaptor<1, 2>::MultiIndex<3>` names nothing)
            if local:
                continue
            return None
        if j >= 1 and lex(j - 1) == b"typename":
            j -= 1
        out.append((toks[j].start, t.end))
    return out


def scoped_ok(node: Node, value: bytes, local: set[bytes]) -> bool:
    """A declaration in a class or function body may move out of it only if `value` names no
    name declared in such a body (`Shape::Mma` is fine: only its first name is looked up here)."""
    parent = node.parent
    if parent is None or parent.type not in ("field_declaration_list", "compound_statement"):
        return True
    return not names_local(value, local)


def spelled(text: bytes, not_after: tuple[bytes, ...]) -> set[bytes]:
    """The identifiers `text` spells, but for those right after a token of `not_after`."""
    toks = tokenize(text)
    return {text[t.start:t.end] for i, t in enumerate(toks)
            if t.kind == "ident" and (i == 0 or text[toks[i - 1].start:toks[i - 1].end] not in not_after)}


def looked_up(text: bytes) -> set[bytes]:
    """The names `text` looks up where it stands (`Shape::Acc` looks up `Shape` only)."""
    return spelled(text, (b"::",))


def names_local(text: bytes, local: set[bytes]) -> bool:
    """Whether `text` looks up a name of `local`. A qualifier (`conv::configs[53]`) is left out:
    the lookup of a name before `::` skips variables, and a local variable named like a namespace
    is common in real code; a local type of that name costs one failed test at most."""
    toks = tokenize(text)
    return bool({n for n in looked_up(text) if not any(
        text[t.start:t.end] == n and i + 1 < len(toks) and text[toks[i + 1].start:toks[i + 1].end] == b"::"
        for i, t in enumerate(toks))} & local)


def _type_parameter(node: Node) -> bytes | None:
    return next((c.text for c in node.named_children if c.type == "type_identifier"), None)


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


def template_parameters(src: Source) -> set[bytes]:
    """Names declared as a template's parameters: `MultiIndex<NDimVisible>` means nothing outside
    the class template whose parameter `NDimVisible` is."""
    names = set()
    for node in src.nodes():
        if node.type in _TYPE_PARAMETERS:
            names.add(_type_parameter(node))
        elif node.type in _DECLARATORS and node.parent is not None and node.parent.type == "template_parameter_list":
            names.add(simple_name(node.child_by_field_name("declarator") or node.child_by_field_name("name")))
    return names - {None}


_WRITE = re.compile(rb"\s*(?:[-+*/%&|^]|<<|>>)?=(?!=)|\s*(?:\+\+|--|\.)")  # `s.x = ` counts


def written_at(text: bytes, start: int, end: int) -> bool:
    """Whether the name at [start, end) is assigned, incremented or has its address taken
    (`dp_num_blocks      = dp_tiles;`: aligned code puts any number of blanks before the `=`)."""
    return bool(_WRITE.match(text, end)) or text[max(0, start - 2):start].endswith((b"++", b"--", b"&"))


# What encloses a declaration made in a function, class, parameter list or enum: not at namespace scope
_INNER = frozenset({"compound_statement", "field_declaration_list", "parameter_list", "template_parameter_list",
                    "enumerator_list", "lambda_expression", "condition_clause", "for_statement", "for_range_loop",
                    "requires_expression", "catch_clause"})
_NAMESPACE_LEVEL = frozenset({"struct_specifier", "class_specifier", "union_specifier", "enum_specifier",
                              "alias_declaration", "type_definition", "declaration", "function_definition"})


@functools.lru_cache(maxsize=2)
def namespace_declarations(src: Source) -> dict[bytes, list[tuple[tuple[bytes, ...], int]]]:
    """Name -> where it is declared at namespace scope: the namespaces around (outermost first,
    b"" an unnamed one) and the position, in file order. Types, aliases, variables, functions,
    and the enumerators of an unscoped enum (which belong to the enum's namespace)."""
    found: dict[bytes, list[tuple[tuple[bytes, ...], int]]] = {}
    for node in src.nodes():
        if node.type == "enumerator":
            enum = node.parent.parent if node.parent is not None else None
            if enum is None or enum.type != "enum_specifier" \
                    or any(c.type in ("class", "struct") for c in enum.children) or _inner(enum):
                continue
            names = [node.child_by_field_name("name")]
        elif node.type in _NAMESPACE_LEVEL and not _inner(node):
            if node.type in ("declaration", "type_definition"):
                names = [d for d in node.children_by_field_name("declarator")]
            elif node.type == "function_definition":
                names = [node.child_by_field_name("declarator")]
            else:
                names = [node.child_by_field_name("name")]
        else:
            continue
        for n in names:
            name = _declared_name(n)
            if name is not None:
                found.setdefault(name, []).append((scope_of(node), node.start_byte))
    return found


_WRAPPERS = frozenset({"init_declarator", "function_declarator", "pointer_declarator", "reference_declarator",
                       "array_declarator", "parenthesized_declarator"})


def _declared_name(n: Node | None) -> bytes | None:
    """The plain name a declarator declares; None for a qualified one (`void A::f()` declares
    nothing new here), an operator or a specialisation."""
    while n is not None and n.type in _WRAPPERS:
        inner = n.child_by_field_name("declarator")
        n = inner if inner is not None else next((c for c in n.named_children if c.type != "type_qualifier"), None)
    return n.text if n is not None and n.type in ("identifier", "type_identifier", "field_identifier") else None


def _inner(node: Node) -> bool:
    node = node.parent
    while node is not None:
        if node.type in _INNER:
            return True
        node = node.parent
    return False


def qualified(src: Source, text: bytes, at: tuple[bytes, ...], before: int,
              origin: tuple[bytes, ...] | None = None, own: frozenset[bytes] = frozenset()) -> bytes | None:
    """`text`, written in the namespaces `origin` (outermost first), made to mean the same in the
    namespaces `at`, before the position `before`: a name it looks up (not one of `own`, which
    the text declares itself) that is declared at namespace scope means, where it was written,
    the declaration of the innermost namespace around `origin` that has one, or else, when only
    one namespace declares it (visible through a using-directive), that one. Where `at` would
    see another declaration or none, the name is qualified with its namespace (`NDHWGC`, visible
    where CK's instance file says `using namespace ck::tensor_layout::convolution;`, becomes
    `::ck::tensor_layout::convolution::NDHWGC` in the class template's namespace;
    `wgrad_xdl_spreads` of an inlined `conv` helper, `::mfconv::conv::wgrad_xdl_spreads` at the
    call in `mfconv::host`). None when a name cannot be made to mean the same there (its
    namespace is unnamed, or declared only after `before`)."""
    declared = namespace_declarations(src)
    toks, out, pos = tokenize(text), [], 0
    for i, t in enumerate(toks):
        name = text[t.start:t.end]
        prev = text[toks[i - 1].start:toks[i - 1].end] if i else b""
        where = declared.get(name)
        if t.kind != "ident" or prev in (b"::", b".", b"->") or not where or name in own:
            continue
        scopes = {scope for scope, _ in where}
        meant = _innermost(scopes, origin) if origin is not None else None
        if meant is None:
            if len(scopes) != 1:
                continue  # not ours to say (a using-directive, argument-dependent lookup)
            meant = next(iter(scopes))
        if _innermost(scopes, at) == meant:
            continue
        if b"" in meant or not any(scope == meant and start < before for scope, start in where):
            return None
        # `x%::ns::k` would lex as the digraph `%:`, `a ? b :::ns::c` as `::` `:`
        space = b" " if t.start and text[t.start - 1:t.start] not in b" \t\n([{," else b""
        out += [text[pos:t.start], space + b"::" + b"::".join(meant) + b"::" + name]
        pos = t.end
    return b"".join(out) + text[pos:]


def _innermost(scopes: set[tuple[bytes, ...]], at: tuple[bytes, ...]) -> tuple[bytes, ...] | None:
    """Which of `scopes` plain lookup from the namespaces `at` finds first."""
    visible = [scope for scope in scopes if scope == at[:len(scope)]]
    return max(visible, key=len) if visible else None
