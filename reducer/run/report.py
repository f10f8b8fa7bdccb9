"""Reports on a run, read from its work directory alone, so `reduce report` works on a finished
run, a stopped one, or one still going: summary.json, report.md with its size plot, and for the
built-in oracle a bug-report directory (reducer/run/bugreport.py) ready to send."""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from interestingness.measure.metrics import METRICS
from interestingness.oracle.spill import base_name

from ..engine.budget import format_seconds
from ..text.files import atomic_write
from ..text.lexer import count_tokens
from ..text.subject import subject_of
from .workdir import WorkDir

PLOT, REPORT, SUMMARY = "size.svg", "report.md", "summary.json"
# records of the state that the summary carries as state.json has them
_FROM_STATE = ("position", "per_pass", "history", "targets", "guards", "finish", "showing_effect", "values", "stalls",
               "pass_bugs", "metrics")


def summarize(wd: WorkDir) -> dict[str, Any]:
    config, state = wd.config, wd.state()
    original = wd.read("original") or b""
    start = wd.read("start") or original
    best = wd.read("best") or start
    final = wd.read("final") or best  # what the user gets: the reduced text after hygiene and clang-format
    subject = subject_of(Path(config["file"]), state.tree, original)
    files = subject.file_sizes(original, final)
    # a file set's sizes and token counts are those of all its files' texts
    original, start, best, final = map(subject.joined, (original, start, best, final))
    saved = state.to_json()
    return {
        "file": config["file"],
        "output": config["output"],
        "oracle": "script " + config["script"] if config.get("script") else "built-in spill differential",
        "outcome": state.outcome or "not started",
        "bytes": {"original": len(original), "start": len(start), "reduced": len(best), "result": len(final)},
        "tokens": {"original": count_tokens(original), "start": count_tokens(start), "reduced": count_tokens(best),
                   "result": count_tokens(final)},
        "tests": state.tests,
        "counters": state.counters,
        "wall_seconds": state.wall_seconds,
        **{key: saved.get(key) for key in _FROM_STATE},
        "files": files,
        "tree": subject.where(Path(config["output"])),
    }


def write_report(wd: WorkDir) -> Path:
    summary = summarize(wd)
    atomic_write(wd.path / SUMMARY, (json.dumps(summary, indent=1) + "\n").encode())
    plotted = _plot(summary["history"], wd.path / PLOT)
    atomic_write(wd.path / REPORT, render(summary, PLOT if plotted else None).encode())
    return wd.path / REPORT


def render(s: dict[str, Any], plot: str | None) -> str:
    b, t, c = s["bytes"], s["tokens"], s["counters"]
    answered = c.get("memo_hits", 0) + c.get("cache_hits", 0) + c.get("shared_waits", 0) + c.get("replayed", 0)
    lines = [
        f"# Reduction of `{Path(s['file']).name}`", "",
        f"- outcome: **{s['outcome']}**",
        f"- oracle: {s['oracle']}",
        f"- result: `{s['output']}`", "",
        f"| | original | start{'' if s.get('files') else ' (flattened)'} | reduced | result (finished) |",
        "|---|---|---|---|---|",
        f"| bytes | {b['original']} | {b['start']} | {b['reduced']} | {b['result']} |",
        f"| tokens | {t['original']} | {t['start']} | {t['reduced']} | {t['result']} |", "",
        *_files_table(s),
        f"- tests run: {s['tests']} ({c.get('oracle_seconds', 0):.0f} s of oracle time this session)"
        + (f"; confirmations of candidates kept (in batches, at checkpoints): {c['confirms']} "
           f"({c.get('unconfirmed', 0)} refused), {c.get('confirm_seconds', 0):.0f} s, "
           f"{100 * c.get('confirm_seconds', 0) / max(c.get('oracle_seconds', 0), 1e-9):.0f}% of oracle time"
           if c.get("confirms") else "")
        + (f"; on a core left idle, for the step after the one in flight: {c['speculated']} "
           f"({c.get('speculated_used', 0)} of them used)" if c.get("speculated") else ""),
        f"- answered without a test: {answered} (memory {c.get('memo_hits', 0)}, cache {c.get('cache_hits', 0)}, "
        f"shared in flight {c.get('shared_waits', 0)}, journal replay {c.get('replayed', 0)}, "
        f"rejected as a respacing of a rejected candidate {c.get('layout_rejects', 0)}); tested although a "
        f"respacing was interesting (a candidate is accepted only on a verdict of its own bytes): "
        f"{c.get('layout_retests', 0)}",
        f"- wall time: {format_seconds(s['wall_seconds'])} (all sessions)",
    ]
    phases = _phases(c, s.get("values"))
    if phases:
        lines.append(f"- oracle seconds per phase this session: {phases}")
    if s.get("finish"):
        f = s["finish"]
        lines.append(f"- finishing (after the reduction): "
                     f"{f['reduced_bytes']} -> {f['after_hygiene_bytes']} bytes by hygiene ("
                     + (", ".join(f"{k}: {v}" for k, v in f["hygiene"].items()) or "nothing kept") + "), "
                     + (f"{f['formatted_bytes']} bytes formatted" if f["formatted_bytes"] else "not formatted")
                     + "".join(f"; {note}" for note in f["notes"]))
    if s.get("targets"):
        others = [k for k in s.get("showing_effect") or [] if k not in s["targets"]]
        lines.append(f"- target kernel{'s' if len(s['targets']) > 1 else ''}: "
                     + ", ".join(f"`{t}`" for t in s["targets"])
                     + (f" (focus: one of the {len(others) + 1} kernels that show the effect in the original; the "
                        f"others, {', '.join(f'`{k}`' for k in others)}, were free to go)" if others else ""))
    if s.get("values"):
        v = s["values"]
        lines.append(f"- constant values from clang: {v['runs']} front-end runs ({v['seconds']:.1f} s) this session, "
                     f"{v['queries']} questions, {v['answered']} answered, {v['stored']} probes from the cache"
                     + (f"; {v['ahead']} runs started ahead on a core left idle, for a step being tested, "
                        f"{v.get('ahead_used', 0)} of them used" if v.get("ahead") else ""))
    if s["position"]:
        lines.append(f"- last position: sweep {s['position']['sweep']}, pass {s['position']['pass']}")
    if s.get("guards"):
        g = s["guards"]
        ub = "UB (-Wuninitialized" + (", sanitizer checks in trap mode on the kernel's optimised IR)"
                                      if g.get("sanitizer") else ")")
        on = [name for name, key in ((ub, "ub"), (f"init ({g.get('init')}: -ftrivial-auto-var-init="
                                                  "zero/pattern)", "init"), ("loop", "loop"))
              if g.get(key)]
        lines.append(f"- guards on: {', '.join(on) or 'none'}" + "".join(f"; {why}" for why in g.get("off", [])))
    for stall in s.get("stalls", []):
        lines.append(f"- stalled at {stall['size']} B (every recent test failed the same way): the best file, tested "
                     "again, " + (f"was **not interesting**; went back to {stall['rolled_back_to']} B"
                                  if "rolled_back_to" in stall else "was interesting"))
    bugs = s.get("pass_bugs", [])
    for bug in bugs:
        lines.append(f"- **pass bug**: `{bug['pass']}` raised `{bug['error']}` while "
                     f"{'enumerating' if bug['stage'] == 'items' else 'applying'} its items on `{bug['file']}`; "
                     f"dropped for the rest of the run (input and traceback in `pass-bugs/{bug['number']}/`)")
    if plot:
        lines += ["", f"![size over time]({plot})"]
    if s["per_pass"]:
        dropped = {bug["pass"]: bug["number"] for bug in bugs}
        lines += ["", "## Yield per pass", "",
                  "Accepted, bytes removed: its kept candidates and what they removed, less those a refused "
                  "confirmation sent back. "
                  "Tests: oracle tests of the pass's candidates (speculative ones included). Answered: by the "
                  "verdict cache or another run's test. Not smaller, pre-filtered: candidates rejected without a "
                  "test (no smaller than the current file, nor progress by the pass's own measure; more parse "
                  "errors). Did not compile: of its tests, those whose candidate the compiler refused, and their "
                  "share (`-` where the oracle cannot tell, a script's). Oracle s: the oracle's seconds for its "
                  "tests and for confirming what it kept, summed over parallel tests; seconds: the wall time "
                  "it ran. B/test, B/oracle-s: bytes removed per test and per oracle second, what it paid. "
                  "Rested: the sweeps it sat out for having paid too little in the one before (less than a byte "
                  "per so many candidates asked: notes/engine.md).", "",
                  "| pass | accepted | bytes removed | tests | B/test | oracle s | B/oracle-s | did not compile | "
                  "answered | not smaller | pre-filtered | seconds | rested |",
                  "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for name, y in sorted(s["per_pass"].items(), key=lambda kv: -kv[1]["bytes_removed"]):
            shown = name + (f" (dropped: bug {dropped[name]})" if name in dropped else "")
            if any(y.get(k) for k in ("tests", "bytes_removed", "answered", "not_smaller", "prefiltered")) \
                    or name in dropped:
                oracle = f"{y['oracle_seconds']:.1f}" if "oracle_seconds" in y else "-"
                lines.append(f"| {shown} | {y['accepted']} | {y['bytes_removed']} | {y['tests']} | "
                             f"{per_test(y)} | {oracle} | {per_oracle_second(y)} | "
                             f"{compile_failures(y)} | {y.get('answered', 0)} | {y.get('not_smaller', 0)} | "
                             f"{y.get('prefiltered', 0)} | {y['seconds']:.1f} | {y.get('rested', 0)} |")
        if (line := compile_failures_line(s["per_pass"])) is not None:
            lines += ["", line]
    if s["metrics"]:
        lines += ["", "## Kernel metrics (built-in oracle)", "", *metric_table(s["metrics"]),
                  "The bug report, ready to send: [`bundle/`](bundle/README.md) (the result, `repro.sh`, "
                  "README.md).", ""]
    return "\n".join(lines) + "\n"


# the phases of the oracle's work its verdicts report (reducer/engine/verdicts.py Counters.phase_seconds)
PHASES = {"front_end": "front end", "lto": "LTO builds", "nolto": "no-LTO builds",
          "ub_guard": "UB guard (sanitizer builds)", "init_guard": "init guard (-ftrivial-auto-var-init builds)"}


def _phases(counters: dict[str, Any], values: dict[str, Any] | None) -> str:
    """The oracle's seconds per phase (summed over the parallel tests), and the values service's
    front-end runs."""
    seconds = dict(counters.get("phase_seconds") or {})
    order = [*PHASES, *sorted(k for k in seconds if k not in PHASES)]
    parts = [f"{PHASES.get(k, k)} {seconds[k]:,.0f}" for k in order if k in seconds]
    if values and values.get("runs"):
        parts.append(f"values service (front end) {values['seconds']:,.0f}")
    return ", ".join(parts)


def per_test(y: dict[str, Any]) -> str:
    """A pass's bytes removed per test of its candidates; `-` without a test."""
    return f"{y['bytes_removed'] / y['tests']:.2f}" if y.get("tests") else "-"


def per_oracle_second(y: dict[str, Any]) -> str:
    """A pass's bytes removed per second of the oracle's work for it; `-` without any (no test,
    or a state written before the oracle's seconds were counted per pass)."""
    return f"{y['bytes_removed'] / y['oracle_seconds']:.1f}" if y.get("oracle_seconds") else "-"


def compile_failures(y: dict[str, Any]) -> str:
    """`7 (58%)`: a pass's tested candidates that did not compile, and their share of those
    whose verdict says; `-` when none does (a script oracle)."""
    known = y.get("build_known", 0)
    if not known:
        return "-"
    return f"{y.get('compile_errors', 0)} ({100 * y.get('compile_errors', 0) / known:.0f}%)"


def compile_failures_line(per_pass: dict[str, dict[str, Any]]) -> str | None:
    """All passes' tested candidates that did not compile, the passes with most first; None when
    no verdict says (a script oracle)."""
    known = sum(y.get("build_known", 0) for y in per_pass.values())
    if not known:
        return None
    failed = sum(y.get("compile_errors", 0) for y in per_pass.values())
    worst = sorted(((name, y) for name, y in per_pass.items() if y.get("compile_errors")),
                   key=lambda kv: (-kv[1]["compile_errors"], kv[0]))
    return (f"did not compile: {failed} of {known} tested candidates ({100 * failed / known:.0f}%)"
            + ("; " + ", ".join(f"{name} {compile_failures(y)}" for name, y in worst) if worst else ""))


def _files_table(s: dict[str, Any]) -> list[str]:
    if not s.get("files"):
        return []
    lines = [f"Files (not flattened; the reduced set is in `{s['tree']['output']}/`, at the paths relative "
             f"to `{s['tree']['root']}`; sizes in the table above are totals):", "",
             "| file | original bytes | result bytes |", "|---|---|---|"]
    lines += [f"| `{f['file']}` | {f['original']} | {f['result']} |" for f in s["files"]]
    return lines + [""]


def metric_table(metrics: dict[str, dict]) -> list[str]:
    """One row per metric, LTO and no-LTO columns (or the two sides') for the original and the
    result, per target kernel."""
    lines = []
    kernels = [k for k in metrics["result"]["kernels"] if k["selected"]]
    names = [s["name"] for s in metrics["result"].get("sides") or []] or ["lto", "nolto"]
    label = {"lto": "LTO", "nolto": "no-LTO"}
    for k in kernels:
        original: list[dict[str, Any]] = metrics["original"]["kernels"]
        before = next((o for o in original if o["name"] == k["name"]), None) or next(
            (o for o in original if o["selected"] and base_name(o["name"]) == base_name(k["name"])),
            {})  # a reduction may rename the kernel (an instantiated template, a deleted parameter)
        lines += [f"`{k['demangled']}`", "", "| metric | " + " | ".join(f"{row} {label.get(n, n)}" for row in
                                                             ("original", "result") for n in names) + " |",
                  "|---|---|---|---|---|"]
        for m in METRICS:
            cells = [(row.get(side) or {}).get(m.name) for row in (before, k) for side in names]
            lines.append(f"| {m.label} | " + " | ".join("-" if v is None else str(v) for v in cells) + " |")
        calls = [f"{which} {side}: " + ", ".join(f"`{name}`" for name in called)
                 for which, row in (("original", before), ("result", k)) for side in names
                 if (called := _called(row, side))]
        if calls:
            lines += ["", "Functions the kernel calls (its figures are summed over them): " + "; ".join(calls) + "."]
        lines.append("")
    return lines


def _called(row: dict[str, Any], side: str) -> list[str]:
    """The functions a kernel of a `reduce check` report calls in one build (demangled)."""
    graph = (row.get("call_graph") or {}).get(side)
    return [f["demangled"] for f in graph["functions"][1:]] if graph else []


def _plot(history: list[list[float]], path: Path) -> bool:
    """size.svg: the best file's size over time, a step line on a log scale. Written here as SVG
    text, since importing a plotting library cost two seconds at the end of every run."""
    if len(history) < 2:
        return False
    width, height, left, right, top, bottom = 700, 350, 80, 20, 34, 46
    times, sizes = [t for t, _ in history], [max(1.0, s) for _, s in history]
    span = max(times[-1] - times[0], 1e-3)
    lo, hi = math.floor(math.log10(min(sizes))), math.ceil(math.log10(max(sizes)))
    hi += hi == lo

    def x(t: float) -> float:
        return round(left + (t - times[0]) / span * (width - left - right), 1)

    def y(size: float) -> float:
        return round(top + (hi - math.log10(size)) / (hi - lo) * (height - top - bottom), 1)

    step = _nice_step(span / 6)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">',
           '<rect width="100%" height="100%" fill="white"/>',
           f'<text x="{(left + width - right) / 2}" y="20" text-anchor="middle" font-size="14">'
           "size of the best file over time</text>"]
    for e in range(lo, hi + 1):
        out += [f'<line x1="{left}" x2="{width - right}" y1="{y(10 ** e)}" y2="{y(10 ** e)}" stroke="#ddd"/>',
                f'<text x="{left - 6}" y="{y(10 ** e) + 4}" text-anchor="end">{10 ** e:,}</text>']
    tick = math.ceil(times[0] / step) * step
    while tick <= times[-1] + 1e-9:
        out += [f'<line x1="{x(tick)}" x2="{x(tick)}" y1="{top}" y2="{height - bottom}" stroke="#ddd"/>',
                f'<text x="{x(tick)}" y="{height - bottom + 16}" text-anchor="middle">{tick:g}</text>']
        tick += step
    steps = [f"M{x(times[0])},{y(sizes[0])}"]
    for t, size in zip(times[1:], sizes[1:]):
        steps.append(f"H{x(t)}V{y(size)}")  # the size holds until the next accepted step
    out += [f'<rect x="{left}" y="{top}" width="{width - left - right}" height="{height - top - bottom}" '
            'fill="none" stroke="#888"/>',
            f'<path d="{"".join(steps)}" fill="none" stroke="#1f77b4" stroke-width="1.5"/>',
            f'<text x="{(left + width - right) / 2}" y="{height - 8}" text-anchor="middle">seconds</text>',
            f'<text transform="translate(14,{(top + height - bottom) / 2}) rotate(-90)" '
            'text-anchor="middle">bytes</text>', "</svg>", ""]
    atomic_write(path, "\n".join(out).encode())
    return True


def _nice_step(rough: float) -> float:
    """1, 2 or 5 times a power of ten, at least `rough`."""
    power = 10 ** math.floor(math.log10(rough))
    return next(m * power for m in (1, 2, 5, 10) if m * power >= rough)
