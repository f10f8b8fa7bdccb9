"""C++ syntax the passes share, over tree-sitter nodes and the file's text: which nodes are whole
statements or declarations, how to name a function, class or template, what is inside a
template, which types are integers, where the preprocessor lines are, how to replace text
without gluing names together, and which expressions are addresses a statement writes through.
A helper module: no pass imports another (tests/test_layering.py)."""
from __future__ import annotations

import re

from tree_sitter import Node

from ..text.edits import Edit
from ..text.lexer import Token

# Nodes that hold a sequence of statements/declarations; their children can be deleted one by one.
# ERROR is among them: inside a region neither grammar parses, each child is a run of tokens.
CONTAINERS = frozenset({
    "translation_unit", "declaration_list", "compound_statement", "field_declaration_list",
    "case_statement", "preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif",
    "preproc_elifdef", "ERROR",
})

_PUNCTUATION_ONLY = frozenset({"{", "}", "#endif", "#else", "#if", "#ifdef", "#ifndef", "#elif"})


def deletable(node: Node, fields: dict | None = None, parent: Node | None = None) -> bool:
    """A child of a container that is not the container's own syntax (braces, #endif, the
    condition of an #if, the label of a case). A walk passes the node's parent and its memo of
    field names (`fields`), which keeps it linear on wide or deep trees."""
    parent = parent if parent is not None else node.parent
    if parent is None or parent.type not in CONTAINERS:
        return False
    if node.type in _PUNCTUATION_ONLY or node.type == "comment":
        return False
    if parent.type != "ERROR" and not node.is_named:
        return False
    field = _field_of(parent, node, {} if fields is None else fields)
    return field not in ("condition", "name", "value", "alternative")


def _field_of(parent: Node, child: Node, fields: dict) -> str | None:
    names = fields.get(parent.id)
    if names is None:
        names = fields[parent.id] = {c.id: parent.field_name_for_child(i) for i, c in enumerate(parent.children)}
    return names.get(child.id)


_NAME_FIELDS = ("declarator", "name", "field", "function")
# declarators whose inner declarator has no field name: `T& x`, `T&& x`, `Ts... xs`
_UNFIELDED = frozenset({"reference_declarator", "variadic_declarator"})
_LEAF_NAMES = frozenset({"identifier", "field_identifier", "type_identifier", "namespace_identifier",
                         "destructor_name", "operator_name"})


def simple_name(node: Node | None) -> bytes | None:
    """`ns::f<int>` -> b'f'; follows declarators and qualifiers down to the unqualified name."""
    while node is not None:
        if node.type in _LEAF_NAMES:
            return node.text
        if node.type in _UNFIELDED:
            node = node.named_children[0] if node.named_children else None
            continue
        node = next((node.child_by_field_name(f) for f in _NAME_FIELDS
                     if node.child_by_field_name(f) is not None), None)
    return None


def entity_name(entity: Node) -> bytes | None:
    """The name a function definition or a class, struct or union declares."""
    if entity.type == "function_definition":
        return simple_name(entity.child_by_field_name("declarator"))
    name = entity.child_by_field_name("name")
    return name.text if name is not None and name.type == "type_identifier" else None


def inside_template(node: Node) -> bool:
    """Whether a template encloses `node`: its code is not instantiated yet. A generic lambda
    (`[&]<DataType DT>() {...}`, `[&](auto flag) {...}`) and an abbreviated function template
    (`void f(auto x)`) are templates too: `vec_of<DT>` in one names a parameter."""
    node = node.parent
    while node is not None:
        if node.type == "template_declaration" or generic(node):
            return True
        node = node.parent
    return False


def generic(node: Node) -> bool:
    """A template that is no template declaration: a lambda with a template parameter list or an
    `auto` parameter, or a function with an `auto` parameter (an abbreviated function template)."""
    if node.type == "lambda_expression":
        if node.child_by_field_name("template_parameters") is not None:
            return True
    elif node.type != "function_definition":
        return False
    params = parameters(node)
    return params is not None and any(placeholder(p) for p in elements(params))


def parameters(node: Node) -> Node | None:
    """The parameter list of a function definition or a lambda (None for `[] {}`)."""
    decl = node.child_by_field_name("declarator")
    if decl is None or decl.type not in ("function_declarator", "lambda_declarator", "abstract_function_declarator"):
        return None
    return decl.child_by_field_name("parameters")


_GLOBAL_ATTRIBUTE = re.compile(rb"__attribute__\s*\(\(\s*global\b")


def kernel_head(node: Node) -> bool:
    """Whether `node`'s own specifiers make it a kernel: `__global__`, or the attribute it stands
    for, which is how clang prints one (`plain`'s kernels)."""
    return any(c.type == "__global__" or c.type == "attribute_specifier" and _GLOBAL_ATTRIBUTE.match(c.text)
               for c in node.children)


def placeholder(param: Node) -> bool:
    """A parameter whose type is `auto` (`auto x`, `const auto& y`, `std::integral auto z`)."""
    type_ = param.child_by_field_name("type")
    return type_ is not None and type_.type == "placeholder_type_specifier"


_INT_TYPES = re.compile(rb"^(?:(?:signed|unsigned|int|short|bool)\s*)+$|^u?int(?:8|16|32)_t$")


def int_type(type_: Node) -> bool:
    """An integer or bool type no wider than `int`, written out (`unsigned int`, `uint32_t`)."""
    return bool(_INT_TYPES.match(b" ".join(type_.text.split())))


_DIRECTIVE = re.compile(rb"[ \t]*#")


# a #define line (continuations joined by CONTINUATION): its name, its parameter list, its body
DEFINE = re.compile(rb"[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)(\([^)]*\))?(.*)", re.S)
CONTINUATION = re.compile(rb"\\\r?\n")


def directives(text: bytes) -> list[tuple[int, int]]:
    """[start, end) of each preprocessor line, continuations included."""
    spans, pos, n = [], 0, len(text)
    while pos < n:
        end = text.find(b"\n", pos)
        end = n if end < 0 else end + 1
        if _DIRECTIVE.match(text, pos):
            while end < n and text[pos:end].rstrip(b"\r\n").endswith(b"\\"):
                more = text.find(b"\n", end)
                end = n if more < 0 else more + 1
            spans.append((pos, end))
        pos = end
    return spans


def elements(list_node: Node) -> list[Node]:
    """The elements of a parameter/argument/initializer list, without punctuation or comments."""
    return [c for c in list_node.named_children if c.type != "comment"]


def _word(byte: int) -> bool:
    return chr(byte).isalnum() or byte == ord("_")


def spaced(text: bytes, start: int, end: int, replacement: bytes) -> Edit:
    """An edit replacing [start, end), with a space added where the replacement would otherwise
    glue onto a neighbouring name (`Tile<4>g` -> `Tile g`, not `Tileg`)."""
    if replacement and start > 0 and _word(text[start - 1]) and _word(replacement[0]):
        replacement = b" " + replacement
    if replacement and end < len(text) and _word(text[end]) and _word(replacement[-1]):
        replacement += b" "
    return Edit(start, end, replacement)


# Calls whose first argument is the address they write: HIP's atomics, clang's and ROCm's builtins.
ATOMIC_CALL = re.compile(rb"atomic[A-Z]\w*|__hip_atomic_\w+|unsafeAtomic\w+|safeAtomic\w+|__atomic_\w+"
                         rb"|__builtin_amdgcn_global_atomic_\w+|__builtin_amdgcn_flat_atomic_\w+")


def written_address(node: Node) -> bool:
    """Whether `node` is an address something is stored through: the first argument of an atomic
    call, or the initialiser of a pointer variable. A literal there (`atomicAdd(0, v)`, `float *o
    = 0;`) is a store through null: shorter, and undefined behaviour no bug report may keep."""
    parent = node.parent
    if parent is None:
        return False
    if parent.type == "argument_list" and parent.named_children and parent.named_children[0].id == node.id:
        call = parent.parent
        fn = call.child_by_field_name("function") if call is not None and call.type == "call_expression" else None
        return fn is not None and fn.type == "identifier" and ATOMIC_CALL.fullmatch(fn.text) is not None
    if parent.type == "init_declarator" and parent.child_by_field_name("value") is not None \
            and parent.child_by_field_name("value").id == node.id:
        declarator = parent.child_by_field_name("declarator")
        return declarator is not None and declarator.type == "pointer_declarator"
    return False


def call_arguments(text: bytes, tokens: list[Token], i: int) -> tuple[list[bytes], int] | None:
    """The arguments' texts of the call whose name is tokens[i] (a macro's: by the parentheses
    alone), and the index of its `)`; None when no `(` follows or none closes it."""
    if i + 1 >= len(tokens) or text[tokens[i + 1].start:tokens[i + 1].end] != b"(":
        return None
    depth, args, arg_start = 0, [], tokens[i + 1].end
    for j in range(i + 1, len(tokens)):
        s = text[tokens[j].start:tokens[j].end]
        if s == b"(":
            depth += 1
        elif s == b")":
            depth -= 1
            if depth == 0:
                args.append(text[arg_start:tokens[j].start].strip())
                return args, j
        elif s == b"," and depth == 1:
            args.append(text[arg_start:tokens[j].start].strip())
            arg_start = tokens[j].end
    return None
