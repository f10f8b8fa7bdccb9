"""Inline a type alias (`using S = Shape;`, `typedef int idx_t;`): every use becomes the aliased
type and the alias goes, in one item. Instantiated code is full of `S::kTileM`, `typename
S::Mma`; after this they name the type they mean, and the type's other uses become deletable.

Only names declared once in the file are inlined, so a use cannot mean something else, and
only where the file shrinks (a long type used many times stays an alias); a class or
function-scope alias is inlined only when its type names nothing local to that scope, nor,
where it is used outside its class, the class template's parameters or any name declared in a
class or function body (a qualifier too: `typename sort::ids` means another `sort` there). An
alias whose type names another (`using __plain_t3 = TensorDescriptor<__plain_t2, ...>`) is not
offered with it: in one chunk the two delete the other and paste its name back through the
first's type (68 of the pass's 78 failed tests in an hour of composable_kernel); the one that
shrinks the file more goes first, the other at the next enumeration. A typedef with an attribute (`ext_vector_type`)
has no type to inline.

Level 0 merges aliases of one type, before any is inlined: a namespace-scope alias whose type is
spelled as an earlier one's, in the same namespaces, goes, and its uses take the earlier name. The plain functions the
clang plugin prints (`plain`) name their types through aliases, a footprint's own set each:
composable_kernel after its chain had 1,291 of them, 606 distinct, about 30 KB repeated.
Inlining one grows the file at its every use; merging only shrinks it, and leaves level 1's
inlining fewer items. On that file all 638 merges in one candidate: 279,379 -> 248,355 B, which
compiles.
"""
from __future__ import annotations

import re

from tree_sitter import Node

from ..text.edits import Edit, Item, compatible, growth, line_span
from ..text.source import Source
from .base import Pass
from .cxx import spaced
from .names import declaration_counts, local_names, looked_up, scoped_ok, template_parameters, uses


class Aliases(Pass):
    name = "aliases"
    well_formed = True
    summary = "replace a type alias by its type at every use, and delete it"
    needs_tree = True

    def items(self, src: Source, level: int) -> list[Item] | None:
        """Level 0 merges the aliases of one type into the first; level 1 inlines aliases."""
        if level == 0:
            return _merges(src)
        return self.enumerate(src) if level == 1 else None

    def enumerate(self, src: Source) -> list[Item]:
        counts, local, parameters, items = declaration_counts(src.root), None, None, []
        for node in src.nodes():
            if node.type == "alias_declaration":
                name, type_ = node.child_by_field_name("name"), node.child_by_field_name("type")
            elif node.type == "type_definition":
                name, type_ = node.child_by_field_name("declarator"), node.child_by_field_name("type")
                if name is None or name.type != "type_identifier":
                    continue  # function-pointer and array typedefs
            else:
                continue
            if name is None or type_ is None or node.has_error:
                continue
            if node.parent is not None and node.parent.type == "template_declaration":
                continue  # an alias template takes arguments
            if any(c.type in ("attribute_specifier", "attribute_declaration") for c in node.children):
                continue  # `typedef T d4_t __attribute__((ext_vector_type(4)));`: the type is not `T`
            local = local if local is not None else local_names(src)
            value = b" ".join(type_.text.split())
            found = uses(src, name.text, node, counts)
            if not found or not scoped_ok(node, value, local):
                continue
            scope = node.parent
            if scope is not None and scope.type == "field_declaration_list" \
                    and any(s < scope.start_byte or e > scope.end_byte for s, e in found):
                # a member used outside its class (`Desc::VisibleIndex`) is out of its template's
                # parameters' scope: `MultiIndex<NDimVisible>` would mean nothing there; nor would
                # a name its class declares, a qualifier included (ck_tile's `sorted2unsorted_map
                # = typename sort::sorted_ids`, used as `sort::sorted2unsorted_map` in a class
                # with a `sort` of its own)
                parameters = parameters if parameters is not None else template_parameters(src)
                if looked_up(value) & (parameters | local):
                    continue
            edits = [spaced(src.text, s, e, _spelled(src.text, s, e, value)) for s, e in found]
            item = (Edit(*line_span(src.text, node.start_byte, node.end_byte)), *edits)
            # an alias whose inlining alone does not shrink the file could only ever be kept
            # riding with others, leaving it larger than they would alone; a chunk holding it is
            # skipped as no smaller
            if growth(item) < 0:
                items.append(item)
        # Nested aliases (`using B = Tuple<A>;`) clash: the most shrinking of each clash is offered.
        return compatible(items, lambda i: (growth(items[i]), i))


_TYPENAME = re.compile(rb"typename\b")


def _spelled(text: bytes, start: int, end: int, value: bytes) -> bytes:
    """`value` as it replaces the use at [start, end): a `typename` written before the use stays
    where the result is still a dependent qualified name (`typename S::Mma` with `S` an alias of
    `Shape<T>`: `typename Shape<T>::Mma`), and goes where it would name no qualified type."""
    typename = _TYPENAME.match(text, start) is not None
    if text[end:end + 64].lstrip().startswith(b"::"):  # `S::left_type`: a qualifier
        bare = value.removeprefix(b"typename ")
        return b"typename " + bare if typename else bare
    keep = typename and b"::" in value and not value.startswith(b"typename ")
    return b"typename " + value if keep else value


def _merges(src: Source) -> list[Item]:
    """An item for each namespace-scope alias whose type is spelled as an earlier one's in the same
    namespaces: its declaration deleted, each use (its name, any qualifier left as written)
    renamed to the earlier alias. Both names declared once in the file."""
    counts = declaration_counts(src.root)
    first: dict[tuple[tuple[bytes, ...], bytes], bytes] = {}
    items: list[Item] = []
    for node in src.nodes():
        if node.type != "alias_declaration" or node.has_error:
            continue
        name, type_ = node.child_by_field_name("name"), node.child_by_field_name("type")
        where = _namespaces(node)
        if name is None or type_ is None or where is None or counts[name.text] != 1:
            continue
        key = (where, b" ".join(type_.text.split()))
        if key not in first:
            first[key] = name.text
            continue
        found = uses(src, name.text, node, counts)
        if found is None:
            continue
        items.append((Edit(*line_span(src.text, node.start_byte, node.end_byte)),
                      *(Edit(e - len(name.text), e, first[key]) for _, e in found)))
    return items


def _namespaces(node: Node) -> tuple[bytes, ...] | None:
    """The names of the namespaces around a declaration at namespace scope, outermost first; None
    inside a class, a function, a template or an unnamed namespace."""
    names: list[bytes] = []
    up = node.parent
    while up is not None and up.type != "translation_unit":
        if up.type == "namespace_definition":
            n = up.child_by_field_name("name")
            if n is None:
                return None
            names.append(n.text)
        elif up.type != "declaration_list":
            return None
        up = up.parent
    return tuple(reversed(names))
