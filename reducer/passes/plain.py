"""Make a target kernel plain: the instantiation of a kernel template, defined as the plain
`__global__` function clang prints for its one argument list (the footprint's `plain`,
text/footprint.py; issue 41).

`instantiate` does the same from the text and stops where the text does not say enough (a
kernel whose arguments name a class nested in the launcher's class, declared after the kernel:
composable_kernel's). The compiler has the instantiation: every parameter replaced, the branches
of `if constexpr` decided, the launch bounds evaluated. The plain definition goes at the end of
the file, reopening the kernel's namespaces, where every type it names is complete; it keeps the
kernel's name, so the oracle follows it as a renamed target. The template's body becomes `;` in
the same item: its instantiation is then emitted no more, and the launcher that names it still
compiles; `unreached` and the other passes take the template and the launcher afterwards.

The same for the function templates on a plain kernel's call path (`load_stage<Config{...}>`, a
class template's static `Run<false>`, also called through an object): one that only plain code
calls, reached from the kept kernels, gets its instantiation printed as a plain function under
a fresh name, put before its first caller, its references rewritten to that name and its
template's body made `;` (footprint `callees`). A template reached with several argument lists
gets one printed function each (`__plain_make_buf_1`, `_2`), all in one item. A non-static
member becomes a free function of its object (`__plain_Run(Cls &self, ...)`, `this` spelled
through `self`), its calls `obj.Run(a)` rewritten to `__plain_Run(obj, a)`; an operator called
by its sign, member or not, as a function of its operands (`a + b` -> `__plain_operator_plus(a,
b)`, `c[i]` -> `__plain_operator_index(c, i)`). A reference whose text holds another one of the
level (`b += -a`, `x.f().g()`) waits a level: written again, its copy of the other's text would
name a template whose body goes. A free function
loses the class's private access: the item also makes public the members of each class its body
names that are not (`private:` / `protected:` -> `public:`, a `class`'s default access too), when
the file spells that class; access decides no code, and the candidate is tested anyway. Two items
opening one class make the same edits, which `apply` keeps once when they compose. So do the
printed definitions' aliases (`using __plain_t5 = ...;`, the footprint's `aliases`): each is
declared once, where the first definition naming it goes, in the namespaces open there (a plain
kernel's at file scope, where its callees in the library's namespace see them), and every item
naming it carries that same edit: the items of one level share it, alone or together. A lambda
in a printed body becomes an object of a class printed before the definition
(`__plain_closure_0{acc, x}`: its captures as members of the same names, one call operator for
each of a generic lambda's instantiations, or one with `auto` parameters when they all print the
same body, which stays as printed): a closure's type has no name to print, so the
function template given it (ck_tile's `static_for`, a pipeline's element-wise operations)
would stay one; given the functor, it is printed at the next level, and so are the templates
the functor's call operators call.

A footprint gives one level of the call graph: the printed callee is plain code that the next
footprint follows. Level 0 is the chain, one item: a footprint's items applied, the footprint of
the result, its items, and so on, each level keeping the items that leave the file within one
step's growth bound from the level before and its parse errors (what the engine would test); one
test for what took a test a level. The chain may grow the file as much as its levels could have,
one step each: the bound of as many steps as templates it makes plain (`progresses`). A level's
edits are on that level's text and cannot be mixed with other items: the chain is one edit, from
the file to its last text. Level 1 is one footprint's items, which the engine takes apart as
before when the oracle refuses the chain.

The printed text is a proposal, tested like any other item. The item may grow the file (a
printed body spells its types in full): its measure is the templates defined with a body and the
member functions class templates define, which no pass but `macros` (whose measure ranks above)
adds.
"""
from __future__ import annotations

from itertools import chain

from tree_sitter import Node

from ..text.edits import Edit, Item, apply
from ..text.footprint import Alias, Footprint
from ..text.source import Source
from .base import Pass


class Plain(Pass):
    name = "plain"
    well_formed = True
    summary = ("define a target kernel instantiated from a template, then the function templates its plain code calls, "
               "as the plain functions clang prints (clang plugin)")
    # the printed definition adds its signature and spells types in full, which on a small file
    # is more than a twentieth
    growth = 0.05
    growth_bytes = 4096

    def progress(self, src: Source) -> int:
        """Templates defined with a body (read from tokens: a kernel behind a macro of attributes is
        no template to tree-sitter), and the member functions a class template defines, which a
        member's item makes declarations (no pass but `macros` adds one either)."""
        text, tokens = src.text, [t for t in src.tokens if t.kind != "comment"]
        count = 0
        for i, t in enumerate(tokens):
            if text[t.start:t.end] != b"template" or i + 1 == len(tokens) or text[tokens[i + 1].start] != ord("<"):
                continue
            depth = 0
            for j in range(i + 1, len(tokens)):  # by index: a slice per template is quadratic on a big file
                u = tokens[j]
                c = text[u.start:u.end] if u.kind == "punct" else b""
                if c in (b"(", b"["):
                    depth += 1
                elif c in (b")", b"]"):
                    depth -= 1
                elif depth == 0 and c in (b";", b"{"):
                    count += c == b"{"
                    break
        return count + sum(_member_of_class_template(n) for n in src.nodes())

    def progresses(self, src: Source, candidate: bytes) -> bool:
        """Smaller, or no larger than as many steps of the pass as the templates it makes plain
        could make the file: the chain is one candidate for several levels, each of which was
        within the bound of one step from the level before."""
        if len(candidate) < len(src.text):
            return True
        lowered = self.progress(src) - self.progress(Source(candidate, src.language))
        return lowered > 0 and self.within_growth(src.text, candidate, lowered)

    def items(self, src: Source, level: int) -> list[Item] | None:
        """Level 0 the chain, one item (when it has two levels or more); level 1 one footprint's
        items, which the engine takes apart when the chain is refused."""
        if level == 0:
            return self._chain(src)
        return self.enumerate(src) if level == 1 else None

    def enumerate(self, src: Source) -> list[Item]:
        fp = src.values.footprint(src.text) if src.values is not None else None
        return [] if fp is None else _level(fp, len(src.text))

    def _chain(self, src: Source) -> list[Item]:
        """One footprint's items applied, then the footprint of the result, and so on: an item
        turning `src.text` into the last text, unless that is level 1's whole chunk (or nothing).
        A level's items are taken in order, each kept when the text stays within one step's
        growth bound from the level's own start (what the engine would have let the level grow
        as a step of its own) and has no more parse errors than `src` (what the engine tests);
        the chain ends at a level that keeps none, or whose result has no footprint (it does not
        compile)."""
        if src.values is None:
            return []
        text, fp, levels, whole = src.text, src.values.footprint(src.text), 0, False
        while fp is not None and (items := _level(fp, len(text))):
            kept: list[Item] = []
            after = text
            for item in items:
                candidate = apply(text, chain.from_iterable((*kept, item)))
                if self.within_growth(text, candidate) and \
                        Source(candidate, src.language).error_count <= src.error_count:
                    kept, after = [*kept, item], candidate
            if not kept or (fp := src.values.footprint(after)) is None:
                break
            text, levels, whole = after, levels + 1, len(kept) == len(items)
        return [] if levels == 0 or levels == 1 and whole else [_replacing(src.text, text)]


def _level(fp: Footprint, end: int) -> list[Item]:
    """One footprint's items on its text (`end` its length): each plain kernel, and each callee
    template with every printed form of it."""
    items: list[Item] = []
    for p in fp.plain:
        items.append((Edit(p.body[0], p.body[1], b";"), *_declaring(p.aliases),
                      Edit(end, end, _within(p.namespaces, p.text))))
    # a template reached with several argument lists comes as one callee each, sharing its
    # body: one item prints them all, or the template loses a body some caller still needs
    by_body: dict[tuple[int, int], list[Edit]] = {}
    for c in fp.callees:
        by_body.setdefault(c.body, [Edit(c.body[0], c.body[1], b";")]).extend(
            (*_declaring(c.aliases), Edit(c.at, c.at, _within(c.namespaces, c.text)),
             *(Edit(b, e, t.encode()) for b, e, t in c.uses)))
    # the classes a member's body names that are not public, opened by its item: each edit
    # once an item; two items opening one class make the same edit, which edits.apply keeps once
    opens: dict[tuple[int, int], set[Edit]] = {}
    for c in fp.callees:
        opens.setdefault(c.body, set()).update(Edit(b, e, t.encode()) for b, e, t in c.opens)
    items.extend((*edits, *sorted(opens[body])) for body, edits in by_body.items())
    return items


def _declaring(aliases: tuple[Alias, ...]) -> tuple[Edit, ...]:
    """The edits that declare a definition's aliases, in their order, each before it (a moved
    one deleted where it was): the same edits in every item that names the alias (siblings of a
    level share one declaration), which `apply` keeps once; at one offset, in the order of the
    items, each of which lists an alias after those it names and before its definition."""
    return tuple(chain.from_iterable(
        ((Edit(*a.moved),) if a.moved else ()) +
        (Edit(a.at, a.at, f"{''.join(f'namespace {n} {{ ' for n in a.namespaces)}{a.text}"
                          f"{'}' * len(a.namespaces)}\n".encode()),) for a in aliases))


def _replacing(text: bytes, new: bytes) -> Item:
    """One edit turning `text` into `new`: the middle where they differ, at least a byte of each
    (`apply` repairs separators around a deletion; a replacement it leaves as it is)."""
    start, shortest = 0, min(len(text), len(new))
    while start < shortest - 1 and text[start] == new[start]:
        start += 1
    tail = 0
    while tail < shortest - start - 1 and text[-1 - tail] == new[-1 - tail]:
        tail += 1
    return (Edit(start, len(text) - tail, new[start:len(new) - tail]),)


def _member_of_class_template(node: Node) -> bool:
    """A member function defined in a class template's body (not itself a template)."""
    if node.type != "function_definition" or node.parent is None or node.parent.type != "field_declaration_list":
        return False
    up = node.parent.parent
    while up is not None and up.type != "template_declaration":
        up = up.parent
    return up is not None


def _within(namespaces: tuple[str, ...], text: str) -> bytes:
    """A definition inside its namespaces reopened, on lines of its own."""
    opening = "".join(f"namespace {n} {{ " for n in namespaces)
    return f"\n{opening}\n{text}{'}' * len(namespaces)}\n".encode()

