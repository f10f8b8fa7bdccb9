"""A small, safe predicate language over one kernel's metrics on both sides.

Names are `SIDE.<metric>` (metrics: see `interestingness.measure.metrics.METRICS`) for two sides, by default
`lto` and `nolto`; the IR oracle names its two llc runs `llc` and `alt`. `orig.SIDE.<metric>` is
the same kernel's figure in the original of the reduction, fixed when the oracle is set up (the
candidate's own figure when a file is checked on its own: it is then its own original).
Allowed: numbers, + - * /, comparisons (chains too), and/or/not, parentheses. Parsed with `ast`
against a whitelist and interpreted, never eval'd. `x / 0` follows IEEE (inf, or nan for 0/0).

Evaluation is three-valued: a side not compiled yet, or a metric the asm could not determine, is
*unknown* (None). `and` is False as soon as one operand is False, so the oracle can compile the
LTO side first and skip the no-LTO compile when the answer is already decided. A predicate that
is still unknown with both sides computed counts as false.

The default predicate (DEFAULT_PREDICATE), exactly:

    lto.vgpr_spills > 0 and lto.spill_ops > 0 and nolto.spill_ops * 4 <= lto.spill_ops and
    nolto.vgpr_spills * 4 <= lto.vgpr_spills and nolto.scratch_size * 4 <= lto.scratch_size and
    lto.mfma > 0 and lto.mfma == nolto.mfma and nolto.vgpr_total <= orig.nolto.vgpr_total and
    lto.max_flat_workgroup_size == orig.lto.max_flat_workgroup_size and
    lto.occupancy == orig.lto.occupancy and (lto.calls > 0 or orig.lto.calls == 0) and
    lto.instructions <= orig.lto.instructions

Under full offload LTO the register allocator spills VGPRs (by the metadata count and by actual
Folded Spill/Reload code); the no-LTO build spills at most a quarter as much by both measures
and uses at most a quarter of the scratch (a reduction once drifted to a kernel whose no-LTO
build put 80 KB of private arrays in scratch: interesting by spill counts alone, but no longer
the bug); both builds do the same matrix work, and some (a c120 reduction once ended with 0
v_mfma on both sides: 0 == 0, but no longer the MFMA kernel of the report). It keys on
register spills, not scratch use: LTO can also put private arrays in scratch without spilling a
register, which is a different effect. The no-LTO build keeps the headroom the original's had:
it allocates no more registers than the original's no-LTO build (the README's first case ended
at 256 registers without LTO and one spill with it, where its original had 252 and four: both
sides at the ceiling, a weaker and perhaps other effect than the one reported). Then the LTO
build spills against the original's register budget (BUDGET_CLAUSE): the same launch bound (a
reduction that drops `__launch_bounds__(256, 2)` gets the default of 1024 work-items and 128
VGPRs, and spills more: the symptom kept, the bug lost) and the same occupancy (waves per SIMD,
which the `amdgpu-waves-per-eu` of the launch bounds decides once the kernel spills). A kernel
whose occupancy llc cannot resolve (an indirect or external call) fails this: say --predicate
without it. When the original's LTO build calls a function (CALL_CLAUSE; figures cover the
kernel's call graph), so does the result's: full LTO leaving a large implementation a call that
the no-LTO build inlines is itself the bug in hipconv's forward kernel (217 VGPRs spilled, all
in the callee), and a reduction of it ended with an LTO build that inlined it and spilled 9 VGPRs
in the kernel, perhaps another effect. The last clause (SIZE_CLAUSE) keeps the code a reviewer reads no larger than the
original's: the LTO build of the kernel has at most the original's instructions (without it, the
README's first case ended at 3,984 where its original had 1,242; issue 42). The oracle adds that
the kernel must exist on both sides.

`reduce explain` uses the same predicate without the budget, call and size clauses
(DEFAULT_EFFECT): it asks which compiler passes make the effect, and a pass disabled alone may
well grow the code, inline a call, or change the occupancy of a kernel that spills less, without
changing the effect.
"""
from __future__ import annotations

import ast
import math
import operator
import re
from collections.abc import Callable, Mapping
from typing import Any

from interestingness.measure.metrics import METRIC_NAMES

SIDE_NAMES = ("lto", "nolto")
ORIGINAL = "orig"  # orig.SIDE.METRIC: the original's figure

# the spill differential itself: what `reduce explain` asks passes about
DEFAULT_EFFECT = (
    "lto.vgpr_spills > 0 and lto.spill_ops > 0"
    " and nolto.spill_ops * 4 <= lto.spill_ops and nolto.vgpr_spills * 4 <= lto.vgpr_spills"
    " and nolto.scratch_size * 4 <= lto.scratch_size and lto.mfma > 0 and lto.mfma == nolto.mfma"
    " and nolto.vgpr_total <= orig.nolto.vgpr_total"
)
# the LTO build spills against the original's register budget: its launch bound and occupancy (issue 43)
BUDGET_CLAUSE = ("lto.max_flat_workgroup_size == orig.lto.max_flat_workgroup_size"
                 " and lto.occupancy == orig.lto.occupancy")
# the LTO build still calls a function when the original's does: whether LTO inlines is part of
# the bug (issue 44)
CALL_CLAUSE = "(lto.calls > 0 or orig.lto.calls == 0)"
# a reduction's result is no larger where the reviewer looks: the target kernel's LTO code
SIZE_CLAUSE = "lto.instructions <= orig.lto.instructions"
DEFAULT_PREDICATE = f"{DEFAULT_EFFECT} and {BUDGET_CLAUSE} and {CALL_CLAUSE} and {SIZE_CLAUSE}"

Value = float | int | bool | None  # None: unknown

# the operators a predicate may use (division by zero has a rule of its own: _eval)
_ARITH: dict[type[ast.operator], Callable[[Any, Any], Value] | None] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: None}
_COMPARE: dict[type[ast.cmpop], Callable[[Any, Any], bool]] = {
    ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge,
    ast.Eq: operator.eq, ast.NotEq: operator.ne}
_UNARY: dict[type[ast.unaryop], Callable[[Any], Value]] = {
    ast.Not: lambda x: not x, ast.USub: operator.neg, ast.UAdd: operator.pos}


class PredicateError(ValueError):
    """The predicate text is not in the language."""


class Predicate:
    """A parsed predicate over two sides' metrics, and the original's figures it reads (`bind`).
    Pickles as its source text, side names and those figures."""

    def __init__(self, source: str, sides: tuple[str, str] = SIDE_NAMES,
                 original: Mapping[str, Value] | None = None):
        """`original`: {"SIDE.METRIC": value} for the `orig.SIDE.METRIC` names it reads; a name
        without a value is unknown."""
        self.source = source
        self.sides = sides
        try:
            tree = ast.parse(source.strip(), mode="eval")
        except SyntaxError as e:
            raise PredicateError(f"syntax error in predicate {source!r}: {e.msg}") from None
        _check(tree.body, sides)
        self._tree = tree.body
        names = _names(tree)
        self.names = tuple(sorted(n for n in names if not n.startswith(ORIGINAL + ".")))  # e.g. "lto.spill_ops"
        # the original's figures it reads, e.g. "nolto.vgpr_total" for orig.nolto.vgpr_total
        self.original_names = tuple(sorted(n.split(".", 1)[1] for n in names if n.startswith(ORIGINAL + ".")))
        self.original = {n: (original or {}).get(n) for n in self.original_names}
        self.canonical = ast.unparse(tree)

    def __reduce__(self):
        return (Predicate, (self.source, self.sides, self.original or None))

    def __repr__(self) -> str:
        return f"Predicate({self.source!r})"

    def bind(self, original: Mapping[str, Mapping[str, Any] | None] | None) -> Predicate:
        """The same predicate reading `original` ({side: its metrics}, the original's tables of
        the kernel) for its orig.* names."""
        tables = original or {}
        values = {n: (tables.get(n.split(".")[0]) or {}).get(n.split(".")[1]) for n in self.original_names}
        return Predicate(self.source, self.sides, values)

    def shown(self) -> str:
        """The source with each orig.* name followed by the value it reads: `orig.nolto.vgpr_total`
        -> `orig.nolto.vgpr_total (252)`."""
        return re.sub(rf"\b{ORIGINAL}\.(\w+\.\w+)\b",
                      lambda m: f"{m.group(0)} ({_shown(self.original.get(m.group(1)))})", self.source)

    def evaluate(self, first: Mapping[str, Any] | None, second: Mapping[str, Any] | None) -> bool | None:
        """True / False, or None when unknown metrics leave it undecided. The tables are the
        metrics of the sides in `sides` order; None for a side not computed (yet)."""
        return _truth(_eval(self._tree, self._env(first, second)))

    def awk(self) -> str:
        """The predicate as an awk expression over variables `SIDE_METRIC` (a bug report's script
        evaluates it without Python), the original's figures as numbers; x / 0 counts as 0 there."""
        return _awk(self._tree, self.original)

    def explain(self, first: Mapping[str, Any] | None, second: Mapping[str, Any] | None) -> str:
        """Why it is not true: the first top-level `and` operand that is false, with its values; only
        when none is, the first one left unknown (a side not computed, a metric not determined).
        The oracle skips the no-LTO side once the LTO side decides, so the clauses over the no-LTO
        side before the false one are unknown, not the reason."""
        env = self._env(first, second)
        node = self._tree
        parts = node.values if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And) else [node]
        truths = [_truth(_eval(part, env)) for part in parts]
        for wanted in (False, None):
            if wanted in truths:
                part = parts[truths.index(wanted)]
                values = ", ".join(f"{n}={_lookup(n, env)}" for n in sorted(_names(part)))
                return f"{ast.unparse(part)} [{values}]"
        return "true"

    def _env(self, first: Mapping[str, Any] | None, second: Mapping[str, Any] | None) -> dict[str, Any]:
        return {**dict(zip(self.sides, (first, second))), ORIGINAL: self.original}


def _check(node: ast.AST, sides: tuple[str, str]) -> None:
    if isinstance(node, ast.BoolOp):
        for v in node.values:
            _check(v, sides)
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.Not, ast.USub, ast.UAdd)):
        _check(node.operand, sides)
    elif isinstance(node, ast.BinOp) and type(node.op) in _ARITH:
        _check(node.left, sides)
        _check(node.right, sides)
    elif isinstance(node, ast.Compare) and all(type(o) in _COMPARE for o in node.ops):
        for v in (node.left, *node.comparators):
            _check(v, sides)
    elif isinstance(node, ast.Constant) and type(node.value) in (int, float):
        pass
    elif isinstance(node, ast.Attribute) and _side(node.value, sides) is not None:
        if node.attr not in METRIC_NAMES:
            raise PredicateError(f"unknown metric {ast.unparse(node)}; known: " + ", ".join(sorted(METRIC_NAMES)))
    else:
        raise PredicateError(f"not allowed in a predicate: {ast.unparse(node)!r} (use {sides[0]}.<metric>, "
                             f"{sides[1]}.<metric>, {ORIGINAL}.{sides[0]}.<metric> (the original's), numbers, "
                             "+ - * /, comparisons, and/or/not)")


def _side(node: ast.AST, sides: tuple[str, str]) -> str | None:
    """`lto` for the `lto` of lto.METRIC, `orig.lto` for orig.lto.METRIC; None for anything else."""
    if isinstance(node, ast.Name) and node.id in sides:
        return node.id
    if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == ORIGINAL
            and node.attr in sides):
        return f"{ORIGINAL}.{node.attr}"
    return None


_AWK_OPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=",
            ast.Eq: "==", ast.NotEq: "!=", ast.And: "&&", ast.Or: "||", ast.Not: "!", ast.USub: "-", ast.UAdd: "+"}


def _awk(node: ast.AST, original: Mapping[str, Value]) -> str:
    if isinstance(node, ast.Constant):
        return repr(node.value)
    if isinstance(node, ast.Attribute):
        name = ast.unparse(node)
        if name.startswith(ORIGINAL + "."):  # a number; unknown: the file's own figure (its own original)
            value = original.get(name.split(".", 1)[1])
            return name.split(".", 1)[1].replace(".", "_") if value is None else repr(value)
        assert isinstance(node.value, ast.Name), f"unchecked node {node!r}"  # lto.M or nolto.M: _check
        return f"{node.value.id}_{node.attr}"
    if isinstance(node, ast.BoolOp):
        return "(" + f" {_AWK_OPS[type(node.op)]} ".join(_awk(v, original) for v in node.values) + ")"
    if isinstance(node, ast.UnaryOp):
        return f"({_AWK_OPS[type(node.op)]}{_awk(node.operand, original)})"
    if isinstance(node, ast.BinOp):
        a, b = _awk(node.left, original), _awk(node.right, original)
        return f"({b} == 0 ? 0 : {a} / {b})" if isinstance(node.op, ast.Div) else f"({a} {_AWK_OPS[type(node.op)]} {b})"
    assert isinstance(node, ast.Compare), f"unchecked node {node!r}"
    vals = [_awk(v, original) for v in (node.left, *node.comparators)]  # a < b < c: a < b && b < c
    return "(" + " && ".join(f"{x} {_AWK_OPS[type(op)]} {y}" for op, x, y in zip(node.ops, vals, vals[1:])) + ")"


def _names(node: ast.AST) -> set[str]:
    """The metric names read: `lto.spill_ops`, `orig.nolto.vgpr_total`."""
    return {ast.unparse(n) for n in ast.walk(node) if isinstance(n, ast.Attribute)
            and not (isinstance(n.value, ast.Name) and n.value.id == ORIGINAL)}  # not the orig.SIDE of orig.SIDE.M


def _lookup(name: str, env: Mapping[str, Any]) -> Value:
    if name.startswith(ORIGINAL + "."):
        return env[ORIGINAL].get(name.split(".", 1)[1])
    side, metric = name.split(".")
    table = env[side]
    return None if table is None else table.get(metric)


def _shown(v: Value) -> str:
    return "unknown" if v is None else str(v)


def _truth(v: Value) -> bool | None:
    return None if v is None else bool(v)


def _eval(node: ast.AST, env: Mapping[str, Any]) -> Value:
    if isinstance(node, ast.Constant):
        assert isinstance(node.value, (int, float)), f"unchecked node {node!r}"
        return node.value
    if isinstance(node, ast.Attribute):
        return _lookup(ast.unparse(node), env)
    if isinstance(node, ast.BoolOp):  # Kleene logic: a decided operand wins over unknowns
        truths = [_truth(_eval(v, env)) for v in node.values]
        decisive = isinstance(node.op, ast.Or)  # True decides `or`, False decides `and`
        if decisive in truths:
            return decisive
        return None if None in truths else not decisive
    if isinstance(node, ast.UnaryOp):
        v = _eval(node.operand, env)
        if v is None:
            return None
        return _UNARY[type(node.op)](v)
    if isinstance(node, ast.BinOp):
        a, b = _eval(node.left, env), _eval(node.right, env)
        if a is None or b is None:
            return None
        if isinstance(node.op, ast.Div):
            return a / b if b else (math.nan if not a else math.copysign(math.inf, a))
        arith = _ARITH[type(node.op)]
        assert arith is not None  # (division: above)
        return arith(a, b)
    if isinstance(node, ast.Compare):  # a < b < c means a < b and b < c
        vals = [_eval(v, env) for v in (node.left, *node.comparators)]
        results = [None if x is None or y is None else _COMPARE[type(op)](x, y)
                   for op, x, y in zip(node.ops, vals, vals[1:])]
        return False if False in results else (None if None in results else True)
    raise AssertionError(f"unchecked node {node!r}")
