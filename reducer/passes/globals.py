"""Move a variable between file scope and a function, in the forms that shrink the file (the
engine takes only smaller candidates, and a plain move is the same size):

- `global-to-local`: a file-scope variable used in one function only becomes a local at the top
  of its body, losing what only file scope needs (`static`, `__device__`, `__constant__`,
  `inline`, `extern`); `__shared__` stays, since it decides where the variable lives. Only a
  read-only (`const`, `__constant__`), `__shared__` or never written variable moves, so that
  no value kept between calls is lost.
- `local-to-global`: a `constexpr` local, or a `const` integer one with a constant initialiser,
  declared identically in two or more functions becomes one declaration before the first of
  them. A plain global would be host-only in HIP; these are usable in device code.
"""
from __future__ import annotations

from collections import defaultdict

from tree_sitter import Node

from ..text.edits import Edit, Item, apply, growth, line_span
from ..text.source import Source, walk
from .base import Pass
from .consteval import ConstEval
from .cxx import inside_template, int_type, simple_name
from .names import declaration_counts, local_names, scoped_ok, written_at

_FILE_SCOPE_ONLY = frozenset({b"static", b"__device__", b"__constant__", b"inline", b"extern"})
_NOTHING_LOST = frozenset({b"const", b"constexpr", b"__constant__", b"__shared__"})  # read-only, or per block anyway
_CONTAINERS = ("translation_unit", "declaration_list")


def _declarator(decl: Node) -> tuple[Node, Node | None] | None:
    """The one declarator of `decl` and its initialiser; None for several or a function."""
    found = [c for i, c in enumerate(decl.children) if decl.field_name_for_child(i) == "declarator"]
    if len(found) != 1 or decl.has_error:
        return None
    d = found[0]
    if d.type == "init_declarator":
        return d.child_by_field_name("declarator"), d.child_by_field_name("value")
    return (d, None) if d.type in ("identifier", "array_declarator") else None


def _name_uses(src: Source) -> dict[bytes, list[int]]:
    """Token indexes of each identifier."""
    where: dict[bytes, list[int]] = defaultdict(list)
    for i, t in enumerate(src.tokens):
        if t.kind == "ident":
            where[src.text[t.start:t.end]].append(i)
    return where


def _functions(src: Source) -> list[Node]:
    return [n for n in src.nodes() if n.type == "function_definition"
            and (b := n.child_by_field_name("body")) is not None and b.type == "compound_statement"]


class GlobalToLocal(Pass):
    name = "global-to-local"
    well_formed = True
    summary = "move a file-scope variable used in one function into that function"
    needs_tree = True

    def enumerate(self, src: Source) -> list[Item]:
        if src.root is None:
            return []
        counts, where, functions = declaration_counts(src.root), None, None
        items: list[Item] = []
        for node in src.root.named_children if src.root.type == "translation_unit" else ():
            found = _declarator(node) if node.type == "declaration" else None
            if found is None:
                continue
            declarator, value = found
            name, quals = simple_name(declarator), {c.text for c in node.children}
            if name is None or counts[name] > 1 or b"extern" in quals and value is None:  # arrays count 0
                continue
            where = where if where is not None else _name_uses(src)
            functions = functions if functions is not None else _functions(src)
            toks = [src.tokens[i] for i in where[name] if not node.start_byte <= src.tokens[i].start < node.end_byte]
            fn = _only_function(functions, toks)
            if fn is None or any(src.text[t.start - 2:t.start] == b"::" for t in toks):
                continue
            if not quals & _NOTHING_LOST and (declarator.type != "identifier" or any(
                    written_at(src.text, t.start, t.end) for t in toks)):
                continue  # a value kept between calls would be lost
            inner = declaration_counts(fn)
            if value is not None and any(n.type == "identifier" and inner[n.text] for n in walk(value)):
                continue  # the initialiser would see the function's own names
            drop = [Edit(c.start_byte - node.start_byte, c.end_byte - node.start_byte) for c in node.children
                    if c.text in _FILE_SCOPE_ONLY]
            moved = b" " + b" ".join(apply(node.text, drop).split())
            start, end = line_span(src.text, node.start_byte, node.end_byte)
            if len(moved) < end - start:
                body = fn.child_by_field_name("body")
                items.append((Edit(start, end), Edit(body.start_byte + 1, body.start_byte + 1, moved)))
        return items


def _only_function(functions: list[Node], toks: list) -> Node | None:
    """The innermost function whose body holds every token of `toks`, if any."""
    if not toks:
        return None
    holding = [f for f in functions
               if all(f.child_by_field_name("body").start_byte < t.start < f.end_byte for t in toks)]
    return min(holding, key=lambda f: f.end_byte - f.start_byte, default=None)


class LocalToGlobal(Pass):
    name = "local-to-global"
    well_formed = True
    summary = "make identical constant locals of several functions one global"
    needs_tree = True

    def enumerate(self, src: Source) -> list[Item]:
        groups: dict[bytes, list[tuple[Node, Node]]] = defaultdict(list)
        ev = local = None
        for fn in _functions(src):
            if inside_template(fn):
                continue
            for node in fn.child_by_field_name("body").named_children:
                found = _declarator(node) if node.type == "declaration" else None
                quals = {c.text for c in node.children}
                if found is None or found[1] is None or found[0].type != "identifier" or b"__shared__" in quals:
                    continue
                type_ = node.child_by_field_name("type")
                if type_ is None:
                    continue
                if b"constexpr" not in quals:
                    ev = ev or ConstEval(src)
                    if b"const" not in quals or not int_type(type_) \
                            or not isinstance(ev.eval(found[1], {}), (int, bool)):
                        continue
                local = local if local is not None else local_names(src)
                if scoped_ok(node, type_.text, local) and scoped_ok(node, found[1].text, local):
                    groups[b" ".join(node.text.split())].append((fn, node))
        counts, where, items = declaration_counts(src.root) if groups else None, None, []
        for text, copies in groups.items():
            fns = [fn for fn, _ in copies]
            name = simple_name(_declarator(copies[0][1])[0])
            tops = [_top(fn) for fn in fns]
            if len(copies) < 2 or len(set(fns)) != len(fns) or counts[name] != len(copies) \
                    or any(t.parent is None for t in tops) or len({t.parent.id for t in tops}) != 1:
                continue
            where = where if where is not None else _name_uses(src)
            if not all(any(f.start_byte <= src.tokens[i].start < f.end_byte for f in fns) for i in where[name]):
                continue  # the name means something else elsewhere
            first = min(tops, key=lambda t: t.start_byte)
            at = line_span(src.text, first.start_byte, first.end_byte)[0]
            item = (Edit(at, at, text + b"\n"),
                    *(Edit(*line_span(src.text, n.start_byte, n.end_byte)) for _, n in copies))
            if growth(item) < 0:
                items.append(item)
        return items


def _top(node: Node) -> Node:
    """The ancestor of `node` declared directly in the file or a namespace."""
    while node.parent is not None and node.parent.type not in _CONTAINERS:
        node = node.parent
    return node
