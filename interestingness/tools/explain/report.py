"""What `reduce explain` found (`ExplainResult`) and how it is written: EXPLAIN.md
(`render_markdown`), explain.json and the culprits' full dumps (`write_explain`), the kernel's
pipelines side by side."""
from __future__ import annotations

import dataclasses
import difflib
import os
import re
import shlex
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from interestingness.measure.metrics import Metrics
from interestingness.oracle.ir import LLC
from interestingness.tools.explain.ablation import OUTCOMES, Ablation, Culprit
from interestingness.tools.explain.knobs import KnobTry
from interestingness.tools.explain.knobs import render as render_knobs
from interestingness.tools.explain.pass_log import PassGates, PassRun, skip_intervals
from interestingness.tools.explain.side_diff import SideDiff
from interestingness.tools.explain.side_diff import render as render_sides
from interestingness.tools.explain.stages import (
    LINK,
    LLC_STAGE,
    NOLTO_STAGE,
    PRELINK,
    SOURCE_STAGES,
    STAGE_SHORT,
    STAGE_TITLES,
    SourceBuilds,
    stage_kind,
    stage_short,
    stage_title,
)

# the figures shown per ablation (the JSON has every metric)
FIGURES = ("vgpr_spills", "spill_ops", "scratch_size", "vgpr", "agpr", "mfma", "instructions", "occupancy")


@dataclass
class ExplainResult:
    mode: str  # "source" or "ir"
    file: str
    target: str  # mangled
    demangled: str
    toolchain: str
    predicate: str
    sides: tuple[str, str]  # the predicate's side names: (lto, nolto), a --side pair's, or (llc, alt)
    baseline: dict[str, Metrics | None]  # per side, as built with the logs
    commands: dict[str, str]  # per stage: its build with opt-bisect's log, by hand
    gates: PassGates
    stages: list[str]  # the stages ablated
    pipelines: dict[str, list[PassRun]]  # per stage: the whole log
    ablations: list[Ablation] = field(default_factory=list)
    culprits: list[Culprit] = field(default_factory=list)
    bisects: list[dict[str, Any]] = field(default_factory=list)  # -opt-bisect-limit searches (old toolchains)
    notes: list[str] = field(default_factory=list)
    jobs: int = 1
    builds: int = 0
    seconds: float = 0.0  # from the start, the target's resolution included
    phases: dict[str, float] = field(default_factory=dict)  # seconds of each phase
    lit_run: str | None = None  # IR: the llc of a lit RUN line (`llc -mtriple=... -mcpu=... -O3`)
    commands_from: str = ""  # where `commands` and the culprits' commands run ("": each line says it)
    knobs: list[KnobTry] = field(default_factory=list)  # the knob table, tried on the spilling side
    stage_sides: dict[str, str] = field(default_factory=dict)  # source: stage -> the side it builds
    sides_diff: SideDiff | None = None  # a --side pair: what the sides differ by
    split: bool = False  # source: the builds after the logs ran their stage's step alone (SourceBuilds.split)

    def side_of(self, stage: str) -> str:
        return self.stage_sides.get(stage, self.sides[0])

    @property
    def mixed(self) -> bool:
        """A source result whose sides are one LTO build and one without (the default pair's modes)."""
        kinds = {stage_kind(s) for s in self.stage_sides} or set(SOURCE_STAGES)
        return self.mode == "source" and kinds == set(SOURCE_STAGES)

    def by_outcome(self, outcome: str) -> list[Ablation]:
        return [a for a in self.ablations if a.outcome == outcome]

    def to_json(self) -> dict[str, Any]:
        return {
            "mode": self.mode, "file": self.file, "target": self.target, "demangled": self.demangled,
            "toolchain": self.toolchain, "predicate": self.predicate, "sides": list(self.sides),
            "baseline": self.baseline, "commands": self.commands, "commands_from": self.commands_from,
            "gates": dataclasses.asdict(self.gates),
            "stages": self.stages,
            "pipelines": {s: [r.to_json() for r in runs] for s, runs in self.pipelines.items()},
            "pipeline_comparison": compare_pipelines(self) if self.mixed else None,
            "ablations": [a.to_json() for a in self.ablations],
            "culprits": [c.to_json() for c in self.culprits],
            "worse": [{"stage": a.stage, "name": a.name, "figures": a.figures} for a in self.by_outcome("worse")],
            "knobs": [k.to_json() for k in self.knobs],
            "stage_sides": self.stage_sides, "sides_diff": self.sides_diff.to_json() if self.sides_diff else None,
            "bisects": self.bisects, "notes": self.notes, "jobs": self.jobs, "builds": self.builds, "split": self.split,
            "seconds": round(self.seconds, 1), "phases": {k: round(v, 1) for k, v in self.phases.items()},
        }


def kernel_pipeline(runs: Sequence[PassRun]) -> list[tuple[str, int, int, int]]:
    """The passes that ran on the kernel (or its module), consecutive repeats of one name folded:
    (name, how many, first index, last index)."""
    out: list[list] = []
    for r in runs:
        if not r.kernel:
            continue
        if out and out[-1][0] == r.name:
            out[-1][1] += 1
            out[-1][3] = r.index or 0
        else:
            out.append([r.name, 1, r.index or 0, r.index or 0])
    return [tuple(x) for x in out]


def compare_pipelines(result: ExplainResult) -> dict[str, Any]:
    """What LTO runs on the kernel that no LTO does not, or runs more often (in the pre-link
    compile and again in the link), and what only no LTO runs: executions on the kernel per stage."""
    counts = {s: Counter(r.name for r in result.pipelines.get(s, []) if r.kernel) for s in SOURCE_STAGES}
    lto = counts[PRELINK] + counts[LINK]
    names = list(dict.fromkeys([*counts[NOLTO_STAGE], *counts[PRELINK], *counts[LINK]]))

    def row(n: str) -> dict[str, Any]:
        return {"name": n, "nolto": counts[NOLTO_STAGE][n], "prelink": counts[PRELINK][n], "link": counts[LINK][n]}

    return {
        "lto_only": [row(n) for n in names if lto[n] and not counts[NOLTO_STAGE][n]],
        "more_under_lto": [row(n) for n in names if counts[NOLTO_STAGE][n] and lto[n] > counts[NOLTO_STAGE][n]],
        "nolto_only": [row(n) for n in names if counts[NOLTO_STAGE][n] and not lto[n]],
        "executions": {s: sum(c.values()) for s, c in counts.items()},
    }


def same_mode_pipelines(result: ExplainResult) -> list[str]:
    """For two sides of one mode: each stage's executions on the kernel, and per kind of stage the
    passes the two sides run a different number of times (`name` first side / second side)."""
    counts = {s: Counter(r.name for r in result.pipelines.get(s, []) if r.kernel) for s in result.stage_sides}
    out = [", ".join(f"{stage_title(s)} {sum(c.values())}" for s, c in counts.items())]
    for kind in dict.fromkeys(stage_kind(s) for s in counts):
        pair = [counts[s] for s in counts if stage_kind(s) == kind]
        if len(pair) != 2:
            continue
        names = list(dict.fromkeys([*pair[0], *pair[1]]))
        moved = [f"`{n}` {pair[0][n]} / {pair[1][n]}" for n in names if pair[0][n] != pair[1][n]]
        out.append(f"{STAGE_TITLES[kind]}: " + (", ".join(moved) if moved else "the same passes, as often"))
    return out


def side_by_side(result: ExplainResult) -> list[str]:
    """The kernel's no-LTO pipeline beside its LTO one (pre-link, then link), aligned on common
    passes: `+` LTO only, `-` no LTO only, `~` both but a different count of executions in a row."""
    left = kernel_pipeline(result.pipelines.get(NOLTO_STAGE, []))
    right = [(PRELINK, *p) for p in kernel_pipeline(result.pipelines.get(PRELINK, []))] + \
            [(LINK, *p) for p in kernel_pipeline(result.pipelines.get(LINK, []))]

    def cell(p, stage: str = "") -> str:
        name, n, first, last = p
        where = f"{first}" if n == 1 else f"{first}-{last}"
        return f"{stage + ' ' if stage else ''}{where:>9} {name}" + (f" x{n}" if n > 1 else "")

    width = max([len(cell(p)) for p in left] + [len(STAGE_TITLES[NOLTO_STAGE])])
    rows: list[tuple[str, str, str]] = []
    matcher = difflib.SequenceMatcher(None, [p[0] for p in left], [p[1] for p in right], autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            rows += [(cell(a), " " if a[1] == b[2] else "~", cell(b[1:], STAGE_SHORT[b[0]]))
                     for a, b in zip(left[i1:i2], right[j1:j2])]
            continue
        for k in range(max(i2 - i1, j2 - j1)):
            a = cell(left[i1 + k]) if i1 + k < i2 else ""
            b = cell(right[j1 + k][1:], STAGE_SHORT[right[j1 + k][0]]) if j1 + k < j2 else ""
            rows.append((a, "-" if a and not b else "+" if b and not a else "|", b))
    head = f"{STAGE_TITLES[NOLTO_STAGE]:<{width}}   LTO: {STAGE_TITLES[PRELINK]}, then {STAGE_TITLES[LINK]}"
    return [head, "-" * len(head), *(f"{a:<{width}} {m} {b}".rstrip() for a, m, b in rows)]


def _cell(v: Any) -> str:
    return "-" if v is None else str(v)


def _figures_line(figures: Metrics | None, base: Metrics | None) -> str:
    if figures is None:
        return "no figures"
    parts = []
    for k in ("vgpr_spills", "spill_ops", "scratch_size", "mfma", "vgpr", "agpr", "instructions"):
        a, b = (base or {}).get(k), figures.get(k)
        parts.append(f"{k} {_cell(a)} -> {_cell(b)}" if a != b else f"{k} {_cell(b)}")
    return ", ".join(parts)


def render_markdown(result: ExplainResult, dumps_dir: str | None = None, diff_lines: int = 80) -> str:
    """EXPLAIN.md for a result. `dumps_dir`: where write_explain put the full dumps (relative to the
    file), to link them; the Markdown itself holds the first `diff_lines` lines of each diff."""
    src = result.mode == "source"
    out: list[str] = []
    w = out.append
    w(f"# Which passes make the difference: `{os.path.basename(result.file)}`\n")
    w(f"Target kernel: `{result.demangled}` (`{result.target}`)  ")
    w(f"Toolchain: {result.toolchain}  ")
    w(f"Predicate: `{result.predicate}`  ")
    phases = ", ".join(f"{k} {v:.0f} s" for k, v in result.phases.items())
    w(f"{result.builds} builds at -j {result.jobs}, {result.seconds:.0f} s in all ({phases})"
      + (": after the logs, each build ran its stage's step alone from one front end's bitcode (the LTO link "
         "from one pre-link compile's), checked on the log builds to give the driver's figures and pass executions"
         if result.split else "") + ".\n")
    sides = [s for s in result.sides if result.baseline.get(s) is not None]
    w("| | " + " | ".join(sides) + " |\n|---|" + "---:|" * len(sides))
    for k in FIGURES:
        w(f"| {k} | " + " | ".join(_cell((result.baseline.get(s) or {}).get(k)) for s in sides) + " |")
    w("")
    side_of = result.side_of if src else (lambda stage: LLC)
    out += render_sides(result.sides_diff, result.commands_from)

    def line(a) -> str:
        return f"{stage_short(a.stage)}: `{a.name}`: {_figures_line(a.figures, result.baseline.get(side_of(a.stage)))}"

    w("## Culprits\n")
    if src:
        first, second = result.sides
        named = result.sides != ("lto", "nolto")
        groups = [([c for c in result.culprits if side_of(c.stage) == first],
                   "Without each of these, disabled alone in its stage of the "
                   + (f"`{first}` build" if named else "LTO build") + ", the predicate no longer holds, the MFMA "
                   "count unchanged:"),
                  ([c for c in result.culprits if side_of(c.stage) == second],
                   (f"Without each of these, disabled alone in its stage of the `{second}` build, it loses the "
                    f"difference (it spills too, or needs scratch), the MFMA count unchanged: what keeps `{second}` "
                    "clear of the spill:") if named else
                   "Without each of these, disabled alone in the no-LTO compile, the no-LTO build loses the "
                   "difference (it spills too, or needs scratch), the MFMA count unchanged: what keeps the build "
                   "without LTO clear of the spill:")]
    else:
        groups = [(result.culprits, "Without each of these, disabled alone in llc, the predicate no longer holds, "
                   "the MFMA count unchanged:")]
    for culprits, title in groups:
        if culprits:
            w(title + "\n")
            w("\n".join(f"- **{line(c)}**" for c in culprits) + "\n")
    if not result.culprits:
        w("None: no pass disabled alone loses the predicate with the MFMA count unchanged"
          + (" (stages ablated: " + ", ".join(stage_short(s) for s in result.stages) + ")." if result.stages
             else ".") + "\n")
    for outcome, title in (("worse", "Without these it spills more (the predicate still holds)"),
                           ("lost-mfma", "Without these the predicate no longer holds, but the MFMA count changes"),
                           ("better", "Without these it spills less, and the predicate still holds")):
        rows = result.by_outcome(outcome)
        if rows:
            w(f"{title}:\n")
            w("\n".join(f"- {line(a)}" for a in rows) + "\n")

    if result.knobs:
        stage = result.knobs[0].stage
        out += render_knobs(result.knobs, result.baseline.get(side_of(stage)),
                            "llc" if stage == LLC_STAGE else f"the {stage_title(stage)}", result.commands_from)
    if result.culprits:
        w("## Where it starts\n")
        if result.commands_from:
            w(f"The commands below run {result.commands_from}.\n")
    for c in result.culprits:
        w(f"### {stage_short(c.stage)}: `{c.name}`\n")
        w(f"Without it: {_figures_line(c.figures, result.baseline.get(side_of(c.stage)))}.  ")
        w(f"Executions in this stage (opt-bisect indices): {', '.join(map(str, c.instances)) or '-'}; "
          f"{c.instance_note or 'not searched'}.\n")
        w(f"```sh\n{c.command}\n```")
        skip = c.enough[:1] or (c.together if len(c.together) < len(c.instances) else [])
        if skip and len(c.instances) > 1:
            opt = [f"-opt-bisect={skip_intervals(skip)}"]
            flag = shlex.join(SourceBuilds.options(c.stage, opt) if src else opt)
            what = f"Execution {skip[0]} alone" if len(skip) == 1 else f"Executions {', '.join(map(str, skip))}"
            w(f"{what} skipped, in place of the -opt-disable: `{flag}`.\n")
        d = c.dump
        if d is None:
            continue
        if d.note:
            w(f"{d.note}\n")
        if d.before or d.after:
            diff = d.diff()
            plus = sum(1 for x in diff if x.startswith("+") and not x.startswith("+++"))
            minus = sum(1 for x in diff if x.startswith("-") and not x.startswith("---"))
            what = "MIR" if (d.before_header or d.after_header).startswith("#") else "IR"
            w(f"{what} of `{d.function}` just before and after execution {_cell(d.index)} "
              f"(`-print-before={d.print_name} -print-after={d.print_name} -filter-print-funcs={d.function}`): "
              f"{len(d.before.splitlines())} -> {len(d.after.splitlines())} lines, +{plus} -{minus}.")
            if dumps_dir:
                stem = d.file_stem(c.stage, c.name)
                w(f"Full dumps: [`{dumps_dir}/{stem}.before.txt`]({dumps_dir}/{stem}.before.txt), "
                  f"[`{dumps_dir}/{stem}.after.txt`]({dumps_dir}/{stem}.after.txt).")
            w("")
            shown = diff[:diff_lines]
            w("```diff\n" + "\n".join(shown) + ("\n... (" + str(len(diff) - len(shown)) + " more lines)"
                                                 if len(diff) > len(shown) else "") + "\n```\n")
    if result.lit_run and result.culprits:
        w("## For a lit test\n")
        w("RUN lines that pin each culprit beside the spill (the figures are the target kernel's without it):\n")
        lines = [f"; RUN: {result.lit_run} < %s | FileCheck %s"]
        for c in result.culprits:
            prefix = "NO-" + re.sub(r"[^A-Za-z0-9]+", "-", c.name).strip("-").upper()
            lines += [f"; RUN: {result.lit_run} {shlex.quote('-opt-disable=' + c.name)} < %s "
                      f"| FileCheck %s --check-prefix={prefix}",
                      f"; {prefix}: .name: {result.target}",
                      f"; {prefix}: .vgpr_spill_count: {_cell(c.figures.get('vgpr_spills'))}{{{{$}}}}"]
        w("```llvm\n" + "\n".join(lines) + "\n```\n")
    if result.bisects:
        w("## opt-bisect-limit search\n")
        for bis in result.bisects:
            w(f"- {stage_short(bis['stage'])}: " + (f"pass {bis['index']} `{bis['name']}` on {bis['on']}: "
                                                     if bis.get("index") else "") + bis["note"])
        w("")

    w("## Ablation\n")
    w("Each pass name disabled alone in one stage (`-opt-disable=NAME` there), the other side as built. "
      "`skipped`: its executions the build skipped (on the kernel); *not built*: every execution of the name "
      "changed nothing (the module's text, the analyses held), so disabled it leaves the build as it was, which "
      "one build with all such names of the stage disabled together confirmed.\n")
    for stage in result.stages:
        rows = [a for a in result.ablations if a.stage == stage]
        changed = [a for a in rows if a.outcome not in ("same", "unknown", "not built")]
        late = sum(a.outcome == "not built" for a in rows)
        w(f"### {stage_title(stage)}: {len(rows)} names, {len(changed)} change the figures"
          + (f", {late} not built (the time bound had passed)" if late else "") + "\n")
        base = result.baseline.get(side_of(stage)) or {}
        header = "| pass | skipped | " + " | ".join(FIGURES) + " | predicate | outcome |"
        w(header + "\n|" + "---|" * (len(FIGURES) + 4))
        w("| (as built) | | " + " | ".join(_cell(base.get(k)) for k in FIGURES) + " | holds | |")
        for a in sorted(rows, key=lambda a: OUTCOMES.index(a.outcome)):
            if a.outcome == "not built":
                w(f"| `{a.name}` | - | " + " | ".join("-" for _ in FIGURES) + " | - | not built (time bound) |")
                continue
            figs = a.figures or {}
            cells = [f"**{_cell(figs.get(k))}**" if figs.get(k) != base.get(k) and a.figures else _cell(figs.get(k))
                     for k in FIGURES]
            pred = "holds" if a.holds else ("error" if a.outcome == "error" else "no")
            w(f"| `{a.name}` | {a.disabled} ({a.on_kernel}){'' if a.built else ', *not built*'} | "
              + " | ".join(cells) + f" | {pred} | {a.outcome} |")
        w("")

    if src and not result.mixed:
        w("## Pipelines\n")
        w("Optional pass executions on the kernel (or its module), from opt-bisect's log, per stage; the passes run "
          "a different number of times in the two sides' stages of one kind:\n")
        w("\n".join(f"- {line}" for line in same_mode_pipelines(result)) + "\n")
    elif src:
        cmp = compare_pipelines(result)
        ex = cmp["executions"]
        w("## Pipelines\n")
        w(f"Optional pass executions on the kernel (or its module), from opt-bisect's log: no-LTO compile "
          f"{ex[NOLTO_STAGE]}; LTO pre-link compile {ex[PRELINK]} and LTO link {ex[LINK]}. Passes on other "
          "functions (before they are inlined) are in the ablation but not counted here.\n")
        for key, title in (("lto_only", "LTO runs, no LTO does not"),
                           ("more_under_lto", "LTO runs more often than no LTO (again in the link)"),
                           ("nolto_only", "no LTO runs, LTO does not")):
            rows = cmp[key]
            if rows:
                w(f"- {title}: " + ", ".join(f"`{r['name']}` ({r['nolto']} / {r['prelink']} + {r['link']})"
                                             for r in rows))
        w("\n(counts: no-LTO / pre-link + link)\n")
        w("<details><summary>Side by side</summary>\n\n```")
        w("\n".join(side_by_side(result)))
        w("```\n</details>\n")
    else:
        w("## Pipeline\n")
        w("```")
        w("\n".join(f"{first if n == 1 else f'{first}-{last}':>9} {name}" + (f" x{n}" if n > 1 else "")
                    for name, n, first, last in kernel_pipeline(result.pipelines.get(LLC_STAGE, []))))
        w("```\n")
    w("## How to reproduce\n")
    w("The builds as they are, with opt-bisect's log" + (f", {result.commands_from}" if result.commands_from else "")
      + ":\n")
    for stage, cmd in result.commands.items():
        w(f"- {stage_title(stage)}:\n\n  ```sh\n  {cmd}\n  ```")
    if result.notes:
        w("\n## Notes\n")
        w("\n".join(f"- {n}" for n in result.notes))
    return "\n".join(out).rstrip() + "\n"


def write_explain(result: ExplainResult, directory: str | os.PathLike, json_too: bool = True) -> Path:
    """EXPLAIN.md, explain.json and the culprits' full dumps (dumps/) in `directory`; returns EXPLAIN.md."""
    import json

    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    dumps = out / "dumps"
    for c in result.culprits:
        if c.dump and (c.dump.before or c.dump.after):
            dumps.mkdir(exist_ok=True)
            stem = c.dump.file_stem(c.stage, c.name)
            (dumps / f"{stem}.before.txt").write_text(c.dump.before_header + "\n" + c.dump.before)
            (dumps / f"{stem}.after.txt").write_text(c.dump.after_header + "\n" + c.dump.after)
    md = out / "EXPLAIN.md"
    md.write_text(render_markdown(result, "dumps" if dumps.exists() else None))
    if json_too:
        (out / "explain.json").write_text(json.dumps(result.to_json(), indent=1) + "\n")
    return md
