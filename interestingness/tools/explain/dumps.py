"""The kernel's IR or MIR just before and after one execution of a culprit (`-print-before`,
`-print-after`), cut from a build's stderr, and their diff with local numbering ignored."""
from __future__ import annotations

import dataclasses
import difflib
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from interestingness.base.process import run
from interestingness.tools.explain.pass_log import BISECT_LINE

_DUMP = re.compile(r"^[;#]?\s*\*\*\* IR Dump (Before|After) (.+?) \*\*\*:?\s*$")


@dataclass
class Dump:
    """The kernel's IR or MIR just before and after one execution of a pass."""

    index: int | None  # the execution's opt-bisect index
    function: str  # the function the dumps are cut to
    print_name: str  # the argument given to -print-before/-print-after
    before_header: str = ""
    after_header: str = ""
    before: str = ""
    after: str = ""
    note: str = ""

    def diff(self, context: int = 2) -> list[str]:
        """A unified diff of the two dumps, matched with local numbering ignored (`%12`, a block's
        `12:`, `!12`): a pass that adds one value renumbers every later one, and the lines a
        reviewer wants are those that changed otherwise. The lines shown are the dumps' own."""
        a, b = self.before.splitlines(), self.after.splitlines()
        matcher = _LineDiff([_renumbered(x) for x in a], [_renumbered(x) for x in b])
        out = ["--- before", "+++ after"]
        for group in matcher.get_grouped_opcodes(context):
            i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
            out.append(f"@@ -{i1 + 1},{i2 - i1} +{j1 + 1},{j2 - j1} @@")
            for tag, x1, x2, y1, y2 in group:
                if tag == "equal":
                    out += [" " + line for line in b[y1:y2]]
                else:
                    out += ["-" + line for line in a[x1:x2]] + ["+" + line for line in b[y1:y2]]
        return out if len(out) > 2 else []

    def file_stem(self, stage: str, name: str) -> str:
        slug = re.sub(r"[^\w.-]+", "-", name).strip("-")
        return f"{stage}-{slug}" + (f"-{self.index}" if self.index is not None else "")

    def to_json(self, diff_lines: int = 400) -> dict[str, Any]:
        """Without the dumps themselves (write_explain puts them in files): their size and the diff."""
        out = {k: v for k, v in dataclasses.asdict(self).items() if k not in ("before", "after")}
        diff = self.diff()
        return {**out, "before_lines": len(self.before.splitlines()), "after_lines": len(self.after.splitlines()),
                "diff": diff[:diff_lines], "diff_lines": len(diff)}


def pick_dumps(log: str, index: int | None, dump: Dump) -> None:
    """From a build's stderr (opt-bisect's log interleaved with -print-before/-after dumps), the
    dumps of execution `index`: the new pass manager prints its line, then the dumps; a legacy
    pass prints its "before" dump first (a printer pass scheduled ahead of it), then its line."""
    events: list[list] = []  # ["bisect", index] or ["Before"/"After", header, lines]
    for line in log.splitlines():
        if m := BISECT_LINE.match(line):
            events.append(["bisect", int(m.group(2))])
        elif m := _DUMP.match(line):
            events.append([m.group(1), line.strip(), []])
        elif events and events[-1][0] != "bisect":
            events[-1][2].append(line)
    at = next((n for n, e in enumerate(events) if e[0] == "bisect" and e[1] == index), None)
    if at is None:  # no index to anchor on: the first pair
        before = next((e for e in events if e[0] == "Before"), None)
        after = next((e for e in events if e[0] == "After"), None)
    else:
        prev = next((n for n in range(at - 1, -1, -1) if events[n][0] == "bisect"), -1)
        nxt = next((n for n in range(at + 1, len(events)) if events[n][0] == "bisect"), len(events))
        after = next((e for e in events[at + 1:nxt] if e[0] == "After"), None)
        before = next((e for e in events[at + 1:nxt] if e[0] == "Before"), None) or \
            next((e for e in reversed(events[prev + 1:at]) if e[0] == "Before"), None)
    if before:
        dump.before_header, dump.before = before[1], "\n".join(before[2]).strip("\n") + "\n"
    if after:
        dump.after_header, dump.after = after[1], "\n".join(after[2]).strip("\n") + "\n"


class _LineDiff(difflib.SequenceMatcher):
    """difflib's hunks over GNU diff's matching, when there is a `diff`: on the MIR of a big
    kernel (11,000 lines, many alike) difflib's own matching takes most of a minute, diff 0.03 s."""

    def __init__(self, a: list[str], b: list[str]):
        super().__init__(None, a, b, autojunk=False)
        self._ops: list[tuple[str, int, int, int, int]] | None = None
        if shutil.which("diff") is None:
            return
        with tempfile.TemporaryDirectory(prefix="reduce-diff-") as d:
            for name, lines in (("a", a), ("b", b)):
                Path(d, name).write_text("".join(f"{x}\n" for x in lines))
            res = run(["diff", "--unchanged-line-format==\n", "--old-line-format=-\n", "--new-line-format=+\n",
                       "a", "b"], cwd=Path(d), timeout=120)
        if res.returncode not in (0, 1):
            return
        ops, i, j = [], 0, 0
        for run_ in re.finditer(r"=+|[-+]+", res.stdout.replace("\n", "")):
            text = run_.group()
            if text[0] == "=":
                ops.append(("equal", i, i + len(text), j, j + len(text)))
                i, j = i + len(text), j + len(text)
                continue
            x, y = text.count("-"), text.count("+")
            ops.append(("replace" if x and y else "delete" if x else "insert", i, i + x, j, j + y))
            i, j = i + x, j + y
        if (i, j) == (len(a), len(b)):
            self._ops = ops or [("equal", 0, 0, 0, 0)]

    def get_opcodes(self):
        return self._ops if self._ops is not None else super().get_opcodes()


_NUMBERED = re.compile(r"(?<![\w.])([%!])\d+\b")
_BLOCK_LABEL = re.compile(r"^\d+:")


def _renumbered(line: str) -> str:
    """An IR or MIR line with its local numbering blanked (values, virtual registers, metadata,
    numbered blocks and their `preds` comments)."""
    line = _BLOCK_LABEL.sub("_:", line.split("; preds =")[0].rstrip())
    return _NUMBERED.sub(r"\1_", line)
