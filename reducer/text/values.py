"""Constant values from the compiler: the passes that fold (instantiate, constants, expr-constant)
ask for the values of constant expressions (`configs[85].kh`, `C.ring_depth()` with `C` bound,
`sizeof(T)`, an `if constexpr` condition, a class-type template argument) and get literals back.

All the questions a pass asks about one version of the file are answered by ONE front-end run:
the file with a probe appended that instantiates an undefined template with each value,

    template <auto...> struct __reduce_probe;
    namespace ns { ::__reduce_probe<(EXPR)>
    #line 7 "<gpu-reduce probe>"
    __reduce_v7; }

and clang prints every value in the diagnostic of its line (`<gpu-reduce probe>:7:1: error:
implicit instantiation of undefined template '__reduce_probe<128>'`). An expression clang cannot
evaluate (not constant, naming something the end of the file does not see) gets an error of
another kind, hence no answer. A class-type value comes back as a C++20 structural literal
(`Config{4, 4, {2, true}, 3}`). Clang prints an enum field as its number, which does not
compile back: a pass that puts such a literal in the file casts those (passes/literals.py) and
first asks for the literal's own value (`confirmed`): it must compile and print the same.

A second kind of question has the same answer source: which branch of each `#if` the compile
takes (`marks`, for the conditionals pass). The candidate, with `#error gpu-reduce-mark ID`
lines put in its branches, goes through the same front end; the marks it reports are the
branches the preprocessor kept.

A third, the footprint (footprint.py): which declarations the kept kernels reach, from a clang
plugin in a front-end run of its own (`plugin_run`, the same front end with the plugin loaded);
its answers are remembered, stored and journalled like the others.

This module starts no process: the front end is injected (run/session.py builds it from the spill
oracle's compiler, with exactly the oracle's flags), and the passes see the service only as the
`values` of a Source. Answers are remembered by candidate text for the run and, when a
persistent store is given (the verdict cache), across sessions, keyed by the probed text; the
run's journal keeps every answer the run got, so a resumed run's replay gets the same ones.
"""
from __future__ import annotations

import re
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future
from contextlib import contextmanager
from dataclasses import dataclass
from typing import NamedTuple

from . import footprint as _footprint

# The probe's format and how its diagnostics are read: part of a stored answer's key.
VALUES_VERSION = "probe/2"
PROBE_FILE = "<gpu-reduce probe>"
MARKS_VERSION = "marks/1"
_MARK = re.compile(r"error: gpu-reduce-mark (\S+)$", re.M)
_PROBE_ERROR = re.compile(r"^" + re.escape(PROBE_FILE) + r":(\d+)[:\d{}-]*: error: implicit instantiation of undefined "
                          r"template '(?:::)?__reduce_probe<(.*)>'(?: \[[^]]*\])*$", re.M)


class Query(NamedTuple):
    """A closed constant expression as written at `scope` (the namespaces around it, outermost
    first; b"" is an unnamed one). With `type`, the value is converted to it first (a template
    parameter's declared type, `bool` for a condition). Only `structural` queries may get a
    class-type answer."""

    expr: bytes
    scope: tuple[bytes, ...] = ()
    type: bytes | None = None
    structural: bool = False


class Value(NamedTuple):
    """A literal that compiles where the expression was: `128`, `8UL`, `(-2)`, `true`, `'z'`,
    `lib::Kind::B`, `Config{4, 4, {2, true}}`; `number` for integers and booleans."""

    text: bytes
    number: int | bool | None = None
    structural: bool = False


Answers = dict[Query, Value]

_INT = re.compile(r"^(-?)(\d+)(U|L|UL|LL|ULL)?$")
_SMALL_INT = re.compile(r"^\((?:signed char|unsigned char|char|short|unsigned short|wchar_t|char8_t|char16_t|"
                        r"char32_t)\)(-?\d+|'(?:[^'\\]|\\.[0-9a-fA-F]*)')$")
_CHAR = re.compile(r"^'([^'\\]|\\[ntrvfab0\\'\"?]|\\x[0-9a-fA-F]{1,2}|\\[0-7]{1,3})'$")
_ESCAPES = {"n": 10, "t": 9, "r": 13, "v": 11, "f": 12, "a": 7, "b": 8, "0": 0, "\\": 92, "'": 39, '"': 34, "?": 63}
_QUALIFIED = re.compile(r"^(?:::)?[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*$")
_CAST = re.compile(r"^\((?:::)?[A-Za-z_][\w:]*\)-?\d+$")  # an enum value no enumerator has: (lib::Kind)7
_STRUCT = re.compile(r"^(?:::)?[A-Za-z_][\w:<>, ]*\{.*\}$", re.S)
_FLOAT = re.compile(r"\d\.\d*e[+-]\d|\binf\b|\bnan\b|\d\.\d")  # clang prints floats with 6 digits: not exact
_UNSAFE = ("(anonymous", "(lambda", "(unnamed", "<", "&", "\\", '"')


def parse_value(printed: str) -> Value | None:
    """The literal of a value as clang prints it in a template argument, or None for what does
    not come back exactly (floats, pointers, anonymous types)."""
    printed = printed.strip()
    if printed in ("true", "false"):
        return Value(printed.encode(), printed == "true")
    if m := _INT.match(printed):
        number = int(m.group(1) + m.group(2))
        if number == -(1 << 63) or number == -(1 << 31) and not m.group(3):
            return None  # `-2147483648` is minus a literal of another type; not worth a cast
        text = printed.encode()
        return Value(b"(" + text + b")" if number < 0 else text, number)
    if m := _SMALL_INT.match(printed):
        inner = m.group(1)
        small = int(inner) if not inner.startswith("'") else _char_value(inner)
        if small is None:
            return None
        return Value(f"({printed})".encode(), small)  # a cast: `(short)3[i]` would mean something else
    if (char := _char_value(printed)) is not None:
        return Value(printed.encode(), char)
    if _QUALIFIED.match(printed):
        return Value(printed.encode()) if "(anonymous" not in printed else None
    if _CAST.match(printed):
        return Value(f"({printed})".encode())
    if _STRUCT.match(printed) and not _FLOAT.search(printed) \
            and not any(u in printed[printed.index("{"):] for u in _UNSAFE) and "(anonymous" not in printed:
        return Value(printed.encode(), structural=True)
    return None


def _char_value(text: str) -> int | None:
    m = _CHAR.match(text)
    if m is None:
        return None
    body = m.group(1)
    if not body.startswith("\\"):
        return ord(body)
    if body[1] == "x":
        return int(body[2:], 16)
    if body[1:].isdigit() and len(body) > 2:
        return int(body[1:], 8)
    return _ESCAPES.get(body[1])


def probe(queries: Sequence[Query]) -> bytes:
    """Lines appended to the file: query i (from 1) is instantiated on the line the diagnostics
    call `<gpu-reduce probe>:i`."""
    out = [b"\n#line 1 \"" + PROBE_FILE.encode() + b"\"\ntemplate <auto...> struct __reduce_probe;\n"]
    for i, q in enumerate(queries, 1):
        value = b"(" + q.expr + b"\n)" if q.type is None else b"(" + q.type + b")(" + q.expr + b"\n)"
        opened = b"".join(b"namespace " + name + b" { " for name in q.scope)
        out.append(opened + b"::__reduce_probe<(" + value + b")>\n#line %d \"%s\"\n__reduce_v%d; " % (
            i, PROBE_FILE.encode(), i) + b"} " * len(q.scope) + b"\n")
    return b"".join(out)


def printed_values(stderr: str) -> dict[int, str]:
    """Query number -> the value clang printed for it."""
    return {int(m.group(1)): m.group(2) for m in _PROBE_ERROR.finditer(stderr)}


def askable(q: Query) -> bool:
    """Whether a query can go into a probe without breaking the probe's other lines."""
    text = q.expr + (q.type or b"") + b"".join(q.scope)
    if b"__reduce_" in text or b"\n#" in text or text.lstrip().startswith(b"#") or b"\\\n" in text:
        return False
    depth = 0
    for c in q.expr:  # brackets must balance, or the probe's own `)>` would be eaten
        depth += c in b"([{"
        depth -= c in b")]}"
        if depth < 0:
            return False
    return depth == 0 and all(re.fullmatch(rb"(?:[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*)?", n) for n in q.scope)


def confirmation(query: Query, value: Value) -> Query:
    """The question whose answer confirms a structural literal: the literal itself as the query's type."""
    return Query(value.text, query.scope, query.type, structural=True)


def confirmed(query: Query, value: Value, answers: Answers) -> bool:
    """Whether `value` (the answer to `query`) compiles back to itself, by `answers`, which hold
    the answer to `confirmation(query, value)`."""
    if not value.structural:
        return True
    again = answers.get(confirmation(query, value))
    return again is not None and again.text == value.text


@dataclass
class ValueStats:
    runs: int = 0             # front-end runs
    seconds: float = 0.0      # their wall time
    stored: int = 0           # probes answered by the persistent store instead of a run
    replayed: int = 0         # probes answered by the run's journal (asked in this run before)
    failures: int = 0         # runs that failed for reasons outside the file (killed, timed out)
    queries: int = 0          # distinct questions asked of clang
    answered: int = 0         # of which clang gave a value
    remembered: int = 0       # questions answered from this run's memory
    ahead: int = 0            # runs started ahead, on a worker, for a text a bet was made on
    ahead_used: int = 0       # of those, whose output a question took later


class ClangValues:
    """The service. `front_end(candidate)` is the stderr of a syntax-only device front-end run
    of a candidate (every error shown), or None when the run failed for reasons outside the
    file. `store` (optional, shared by runs) and `journal` (optional, the run's own) have
    `get_record(content) -> dict | None` and `put_record(content, dict)`; the store is keyed by
    everything that decides a front-end run besides the content (the verdict cache does that),
    the journal belongs to one run of one oracle (workdir.ValuesJournal).

    What a failed question answers: a front-end run that fails for the content (the file does
    not compile, an expression is not constant) is an answer like any other, the values clang
    printed, if any; clang is deterministic, so it goes to the store and the journal. A run
    that fails for reasons outside the content (a signal, a timeout, out of memory: None) is
    tried once more, and if that fails too the answer is that nothing is known: it goes to the
    journal, so that this session asking again and a resumed session replaying get the same
    answer and enumerate the same items, and never to the store, where every later run would
    take a passing accident for a fact about the text. The journal keeps every answer, not
    only failures: a replay must also get what an earlier session was told when the store has
    since dropped it and the front end now fails."""

    def __init__(self, front_end: Callable[[bytes], str | None], store=None, memory: int = 6, journal=None,
                 plugin_run: Callable[[bytes], str | None] | None = None):
        self.front_end = front_end
        self.plugin_run = plugin_run  # the front end with the footprint plugin, printing its JSON
        self._footprints: OrderedDict[bytes, _footprint.Footprint | None] = OrderedDict()
        self.store = store
        self.journal = journal
        self.stats = ValueStats()
        self._memory: OrderedDict[bytes, dict[Query, Value | None]] = OrderedDict()
        self._size = memory
        # front-end runs started on a worker ahead of the question (`ahead`), by key
        self._fetching: OrderedDict[bytes, Future] = OrderedDict()
        self._submit: Callable[..., Future | None] | None = None

    @contextmanager
    def ahead(self, submit: Callable[..., Future | None]) -> Iterator[None]:
        """While the engine bets on a text it may keep next (the pass's items on it): a question
        whose answer needs a front-end run starts that run through `submit(front_end, candidate)`
        (on a worker) and raises LookupError, rather than holding up the search with the run
        here; if the text is kept, the question comes again and takes that run's output. What the
        journal, the store or memory holds is answered as usual."""
        self._submit = submit
        try:
            yield
        finally:
            self._submit = None

    def bind(self, compose: Callable[..., bytes]) -> Bound:
        """Questions about one candidate: `compose(probe)` is that candidate with `probe`
        appended to the file compiled first (the file itself, or a file set's main file), and
        `compose(b"", part)` the candidate with the part being reduced replaced by `part`."""
        return Bound(self, compose)

    def ask(self, compose: Callable[[bytes], bytes], queries: Iterable[Query]) -> Answers:
        queries = list(dict.fromkeys(queries))
        base = compose(b"")
        known = self._memory.pop(base, None)
        known = {} if known is None else known
        self._memory[base] = known
        while len(self._memory) > self._size:
            self._memory.popitem(last=False)
        missing = [q for q in queries if q not in known]
        self.stats.remembered += len(queries) - len(missing)
        for q in [q for q in missing if not askable(q)]:
            known[q] = None
        missing = [q for q in missing if q not in known]
        if missing:
            known.update(self._answer(compose, missing))
        return {q: v for q in queries if (v := known.get(q)) is not None}

    def _answer(self, compose: Callable[[bytes], bytes], queries: list[Query]) -> dict[Query, Value | None]:
        self.stats.queries += len(queries)
        printed = self._printed(compose(probe(queries)))
        answers: dict[Query, Value | None] = {}
        for i, q in enumerate(queries, 1):
            value = parse_value(printed[i]) if i in printed else None
            answers[q] = None if value is None or value.structural and not q.structural else value
        self.stats.answered += sum(v is not None for v in answers.values())
        return answers

    def marks(self, candidate: bytes) -> set[str]:
        """The marks of `candidate`'s `#error gpu-reduce-mark ID` lines that the front end
        reports: those in what the preprocessor kept. Empty when the run failed."""
        return set(self._read(MARKS_VERSION, candidate, lambda stderr: dict.fromkeys(_MARK.findall(stderr), "")))

    def footprint(self, candidate: bytes, part: bytes) -> _footprint.Footprint | None:
        """The footprint of `part` (the file compiled first) in `candidate`: None without the
        plugin, or when the plugin gives none (the file does not compile, `part` is not the file
        it reports on)."""
        if self.plugin_run is None:
            return None
        if candidate in self._footprints:
            self._footprints.move_to_end(candidate)
            return self._footprints[candidate]
        found = self._read(_footprint.version(), candidate, lambda out: {"json": out}, self.plugin_run)
        answer = _footprint.parse(found.get("json", ""), part)
        self._footprints[candidate] = answer
        while len(self._footprints) > self._size:
            self._footprints.popitem(last=False)
        return answer

    def _printed(self, candidate: bytes) -> dict[int, str]:
        return {int(k): v for k, v in self._read(VALUES_VERSION, candidate,
                                                 lambda stderr: {str(k): v for k, v in printed_values(stderr).items()})
                .items()}

    def _read(self, version: str, candidate: bytes, parse: Callable[[str], dict[str, str]],
              front_end: Callable[[bytes], str | None] | None = None) -> dict[str, str]:
        """What `parse` reads from the front end's output on `candidate` (its errors; with
        `front_end`, that run's): from the run's journal, or else from the store or a run, and
        then journalled (see the class)."""
        key = version.encode() + b"\0" + candidate
        record = self.journal.get_record(key) if self.journal is not None else None
        if record is not None:
            self.stats.replayed += 1
            return record["printed"]
        found = self._stored_or_run(key, candidate, parse, front_end or self.front_end)
        if self.journal is not None:
            self.journal.put_record(key, {"printed": found})
        return found

    def _stored_or_run(self, key: bytes, candidate: bytes, parse: Callable[[str], dict[str, str]],
                       front_end: Callable[[bytes], str | None]) -> dict[str, str]:
        """From the store, or from a run (stored); nothing when the run fails twice for reasons
        outside the content (not stored)."""
        record = self.store.get_record(key) if self.store is not None else None
        if record is not None:
            self.stats.stored += 1
            return record["printed"]
        if self._submit is not None:
            if key not in self._fetching and (started := self._submit(front_end, candidate)) is not None:
                self.stats.ahead += 1
                self._fetching[key] = started
                while len(self._fetching) > self._size:
                    self._fetching.popitem(last=False)
            raise LookupError("a front-end run, started ahead")
        fetched = self._fetching.pop(key, None)
        for _ in range(2):
            start = time.monotonic()
            stderr = _output(fetched) if fetched is not None else front_end(candidate)
            if fetched is not None:
                self.stats.ahead_used += 1
                fetched = None
            self.stats.runs += 1
            self.stats.seconds += time.monotonic() - start
            if stderr is not None:
                found = parse(stderr)
                if self.store is not None:
                    self.store.put_record(key, {"printed": found})
                return found
            self.stats.failures += 1
        return {}


def _output(run: Future) -> str | None:
    """A run started ahead: its output, or None (like a failed run's) when its worker failed or
    was stopped."""
    try:
        return run.result()
    except Exception:  # noqa: BLE001 - a worker killed with a stopped search: the run is made again
        return None


class Bound:
    """The service bound to one candidate (a Source's `values`): called with queries, it answers
    them; `marks(part)` are the marks the front end reports for the candidate with the part
    being reduced replaced by `part` (`ClangValues.marks`), `footprint(part)` its footprint."""

    def __init__(self, service: ClangValues, compose: Callable[..., bytes]):
        self.service, self.compose = service, compose

    def __call__(self, queries: Iterable[Query]) -> Answers:
        return self.service.ask(self.compose, queries)

    def marks(self, part: bytes) -> set[str]:
        return self.service.marks(self.compose(b"", part))

    def footprint(self, part: bytes) -> _footprint.Footprint | None:
        """The footprint of the candidate with the part being reduced replaced by `part`
        (`ClangValues.footprint`)."""
        return self.service.footprint(self.compose(b"", part), part)
