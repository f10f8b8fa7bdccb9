"""What a run does after the reduction, so that its result is ready to file: the hygiene rules
(reducer/passes/hygiene.py), sinks for stores through null (hygiene.sink_variants), then clang-format.
Each step is kept only when the file is still interesting, tested for its exact bytes; a step may
grow the file a little. The run's history and
per-pass yields are of the reduced text; its summary gives both sizes."""
from __future__ import annotations

import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path

from interestingness.base.process import run

from ..passes.hygiene import rules as hygiene_rules
from ..passes.hygiene import sink_variants
from ..text.edits import Edit, apply
from ..text.source import Source

CLANG_FORMAT = ("/usr/lib/llvm-22/bin/clang-format", "clang-format-22", "clang-format")


@dataclass
class Finished:
    parts: list[bytes]
    reduced: int                      # bytes before these steps
    after_hygiene: int
    formatted: int | None = None      # bytes after clang-format, None when not formatted
    rules: dict[str, int] = field(default_factory=dict)  # hygiene rule -> edits kept
    notes: list[str] = field(default_factory=list)

    def summary(self) -> dict:
        return {"reduced_bytes": self.reduced, "after_hygiene_bytes": self.after_hygiene,
                "formatted_bytes": self.formatted, "hygiene": self.rules, "notes": self.notes}


def finish(parts: Sequence[bytes], languages: Sequence[str], originals: Sequence[bytes],
           interesting: Callable[[list[bytes]], bool], *, format_with: str | None, style_file: Path,
           initialise: bool = True) -> Finished:
    """Hygiene, then formatting, of `parts` (a file set's files, or one file). `interesting` tests a
    candidate made of parts; `format_with` is the clang-format to run (None: no formatting);
    `style_file` is where clang-format starts looking for a user's .clang-format; `initialise`:
    whether the rules that initialise scalars and bound loops run (hygiene.DEFINING)."""
    parts = list(parts)
    chosen = hygiene_rules(initialise)
    done = Finished(parts, sum(map(len, parts)), 0)
    proposals = {name: [rule(Source(p, lang), Source(o, lang)) for p, lang, o in zip(parts, languages, originals)]
                 for name, rule in chosen.items()}
    every = [_edited(parts, [list(chain.from_iterable(per[i] for per in proposals.values()))
                             for i in range(len(parts))])]
    if any(items for per in proposals.values() for items in per) and interesting(every[0]):
        parts = every[0]
        done.rules = {name: sum(map(len, per)) for name, per in proposals.items() if any(per)}
    else:  # one rule at a time, on top of the ones kept (each rule's items re-proposed on the current text)
        for name, rule in chosen.items():
            items = [rule(Source(p, lang), Source(o, lang)) for p, lang, o in zip(parts, languages, originals)]
            if any(items):
                candidate = _edited(parts, items)
                if interesting(candidate):
                    parts, done.rules[name] = candidate, sum(map(len, items))
    parts = _sinks(parts, languages, originals, interesting, done)
    done.after_hygiene = sum(map(len, parts))
    if format_with is not None:
        results = [_format(p, format_with, style_file) if lang != "text" else p for p, lang in zip(parts, languages)]
        formatted = [p for p in results if p is not None]
        if len(formatted) < len(results):
            done.notes.append(f"{format_with} failed; the result is not formatted")
        elif formatted != parts and interesting(formatted):
            parts, done.formatted = formatted, sum(map(len, formatted))
        elif formatted != parts:
            done.notes.append("the formatted file is not interesting; the result is not formatted")
    done.parts = parts
    return done


def _sinks(parts: list[bytes], languages: Sequence[str], originals: Sequence[bytes],
           interesting: Callable[[list[bytes]], bool], done: Finished) -> list[bytes]:
    """Stores and atomics through null or a constant address made to go through a pointer
    parameter of their kernel: for each such kernel of each part, the first of its variants
    (hygiene.sink_variants) that is still interesting, on top of those kept."""
    for i, (lang, original) in enumerate(zip(languages, originals)):
        base, chosen = parts[i], list[Edit]()
        for variants in sink_variants(Source(base, lang), Source(original, lang)):
            for variant in variants:
                candidate = [*parts[:i], apply(base, [*chosen, *variant]), *parts[i + 1:]]
                if interesting(candidate):
                    chosen += variant
                    parts = candidate
                    done.rules["sinks"] = done.rules.get("sinks", 0) + 1
                    break
            else:
                done.notes.append("a store or atomic through null or a constant address is left: no pointer "
                                  "parameter in its place kept the file interesting")
    return parts


def clang_format(near: str | None = None) -> str | None:
    """clang-format beside the toolchain's clang, else Debian's, else on PATH."""
    candidates = ([str(Path(near).parent / "clang-format")] if near else []) + list(CLANG_FORMAT)
    return next((found for c in candidates if (found := shutil.which(c))), None)


def _edited(parts: list[bytes], items_per_part: list[list]) -> list[bytes]:
    """Each part with all of its items applied."""
    return [apply(p, chain.from_iterable(items)) if items else p for p, items in zip(parts, items_per_part)]


def _format(text: bytes, binary: str, style_file: Path) -> bytes | None:
    """clang-format in LLVM style, or the user's .clang-format found from `style_file`'s
    directory up; includes are not sorted (their order can matter)."""
    res = run([binary, "--style=file", "--fallback-style=LLVM", "--sort-includes=false",
               f"--assume-filename={style_file.with_suffix('.cpp')}"], cwd=style_file.parent, timeout=120,
              stdin=text)
    return res.stdout.encode() if res.returncode == 0 else None
