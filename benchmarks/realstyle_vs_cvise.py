#!/usr/bin/env python3
"""Issue 16: a real-library-style case reduced by three reducers side by side for a fixed wall
time, with bytes over time on one plot.

Variants, all started at the same moment (or, with --one-at-a-time, one after another, each
alone on the machine for the same time), each with its own empty verdict cache, at equal -j:

- "ours": the current tree (the one this script is in), the default schedule;
- "baseline": our current version without the new mechanism. It is either
  `--baseline-rev REV` (default: the commit issue 16's work started from), run from a
  `git worktree` of that commit, or `--baseline-args "..."`, which runs the current tree with
  those extra options (e.g. a switch that turns the mechanism off, or a `--passes` list). Which
  one ran is printed and written into the plot's legend;
- "cvise": C-Vise on the flattened file with the same oracle behind benchmarks/spill_test.py
  (the same compiles, predicate, lazy second compile, UB guard and target kernels: every kernel
  the predicate holds for on the original, as ours uses).

Ours and the baseline get the case's repro.hip and flatten it themselves. C-Vise cannot
flatten, so it gets the flattened file that ours starts from. Whatever is still running at the
deadline gets SIGTERM. Ours stops cleanly and keeps its best file; C-Vise's file at that moment
is measured. Every --sample seconds the size of each variant's current best file is recorded.
The plot goes to --plot (PNG) and the samples to the same name with .csv. At the end a table
gives, per variant: bytes and tokens of the result, tests run, wall time, whether it finished,
whether the result is one plain (non-template) __global__ kernel with no config table left,
and whether `reduce check` calls the result interesting.

    .venv/bin/python benchmarks/realstyle_vs_cvise.py                   # corpora/mfconv_pos, 60 min, -j 2
    .venv/bin/python benchmarks/realstyle_vs_cvise.py --minutes 5 --plot /tmp/trial.png
    .venv/bin/python benchmarks/realstyle_vs_cvise.py --one-at-a-time --minutes 30   # each gets both cores

Three reducers at -j 2 at once on a 2-core machine get about a third of it each: the side-by-side
plot compares them under equal load, and --one-at-a-time shows what each does with the machine
to itself, as a user at -j 2 would run it.
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
from spill_vs_cvise import run_cvise  # noqa: E402

from interestingness.tools.check import run_check  # noqa: E402
from reducer.passes.cxx import inside_template  # noqa: E402
from reducer.text.flatten import flatten, include_dirs  # noqa: E402
from reducer.text.lexer import count_tokens, tokenize  # noqa: E402
from reducer.text.source import Source  # noqa: E402

VARIANTS = ("ours", "baseline", "cvise")
# bc5485f: the tree issue 16's mechanisms (values from clang, target-kernel focus) branched from
BASELINE_REV = "bc5485f"
# identifiers of mfconv's generated configuration table; any of them left means the table is
TABLE_NAMES = ("configs", "make_configs", "wgrad_xdl_spreads", "config_spread", "for_each_spread_config")
CHECKPOINTS_MIN = (1, 2, 5, 10, 15, 20, 30, 40, 50, 60, 90, 120)
SUMMARY = re.compile(r"bytes\s+(\d+) -> (\d+).*?tokens (\d+) -> (\d+).*?tests\s+(\d+) run", re.DOTALL)


def absolute_flags(flags: list[str]) -> list[str]:
    out = []
    for f in flags:
        if f.startswith("-I") and len(f) > 2 and not os.path.isabs(f[2:]):
            f = "-I" + str((ROOT / f[2:]).resolve())
        out.append(f)
    return out


class Reducer:
    """One of our runs (`python -m reducer.cli`) from a given source tree, as a process group."""

    def __init__(self, name: str, tree: Path, repro: Path, flags: list[str], extra: list[str], jobs: int, work: Path):
        self.name, self.tree = name, tree
        self.out = work / f"{name}.hip"
        self.cache = work / f"cache-{name}"
        self.log = work / f"{name}.log"
        self.cmd = [sys.executable, "-m", "reducer.cli", str(repro), "-o", str(self.out), "-j", str(jobs), "-q",
                    "--force", "--cache-dir", str(self.cache), *extra, "--", *flags]
        self.proc: subprocess.Popen | None = None
        self.start = self.end = 0.0
        self.work = work

    def launch(self) -> None:
        env = {**os.environ, "PYTHONPATH": str(self.tree)}
        self.start = time.monotonic()
        with open(self.log, "wb") as log:
            self.proc = subprocess.Popen(self.cmd, cwd=self.work, env=env, stdout=log, stderr=subprocess.STDOUT,
                                         start_new_session=True)

    def poll(self) -> bool:
        """Still running."""
        if self.proc is not None and self.proc.poll() is None:
            return True
        if not self.end:
            self.end = time.monotonic()
        return False

    def terminate(self) -> bool:
        """SIGTERM if still running (a clean stop that keeps the best file and writes the report)."""
        if not self.poll():
            return False
        self.end = time.monotonic()
        os.killpg(self.proc.pid, signal.SIGTERM)
        return True

    def reap(self, deadline: float) -> None:
        try:
            self.proc.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()

    def result(self) -> dict:
        summary = Path(str(self.out) + ".work") / "summary.json"
        row = {"exit": self.proc.returncode if self.proc else None, "wall": (self.end or time.monotonic()) - self.start}
        if summary.exists():
            s = json.loads(summary.read_text())
            row.update(tests=s.get("tests"), outcome=s.get("outcome"))
        else:  # an older revision: the summary printed at the end
            m = SUMMARY.search(self.log.read_text(errors="replace"))
            row.update(tests=int(m.group(5)) if m else None, outcome=None)
        row["finished"] = row["exit"] == 0
        row["path"] = self.out if self.out.exists() else None
        return row


def stop_all(reducers: list[Reducer], grace: float) -> None:
    """SIGTERM to every run still going at the same moment, SIGKILL to those still there after `grace` s."""
    stopped = [r for r in reducers if r.terminate()]
    deadline = time.monotonic() + grace
    for r in stopped:
        r.reap(deadline)


def kernel_shape(text: bytes, table_names: tuple[str, ...]) -> dict:
    """How many __global__ function definitions `text` has, whether it is exactly one and not a
    template, and which identifiers of the config table are left. A `__global__` is a
    definition when a `{` comes before a `;` outside parentheses (tree-sitter's CUDA grammar
    mis-parses `__global__ MACRO(...) void f(...) {...}`; the tokens do not lie). Template:
    tree-sitter's enclosing node is inside a template declaration."""
    toks = [t for t in tokenize(text) if t.kind != "comment"]
    src = Source(text, "cuda")
    nodes = [n for n in src.nodes() if n.type in ("function_definition", "declaration")
             and any(c.type == "__global__" for c in n.children)]
    defs = []
    for i, t in enumerate(toks):
        if text[t.start:t.end] != b"__global__":
            continue
        depth = 0
        for u in toks[i + 1:]:
            s = text[u.start:u.end]
            depth += s in (b"(", b"[") or -(s in (b")", b"]"))
            if depth == 0 and s in (b"{", b";"):
                if s == b"{":
                    node = next((n for n in nodes if n.start_byte <= t.start < n.end_byte), None)
                    defs.append(node is not None and inside_template(node))
                break
    words = {text[t.start:t.end] for t in toks if t.kind == "ident"}
    table = sorted(n for n in table_names if n.encode() in words)
    return {"kernels": len(defs), "plain": len(defs) == 1 and not defs[0], "table": table}


def git_worktree(rev: str, where: Path) -> Path:
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(where), rev], check=True,
                   capture_output=True, text=True)
    return where


def remove_worktree(where: Path) -> None:
    subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(where)], capture_output=True)


def plot(samples: dict[str, list[tuple[float, int]]], labels: dict[str, str], title: str, path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker
    fig, ax = plt.subplots(figsize=(9, 5.5))
    style = {"ours": dict(lw=2.2), "baseline": dict(lw=1.6, ls="--"), "cvise": dict(lw=1.6, ls="-.")}
    for name, pts in samples.items():
        if pts:
            ax.plot([t / 60 for t, _ in pts], [b for _, b in pts], label=labels[name], drawstyle="steps-post",
                    **style.get(name, {}))
    ax.set_yscale("log")
    ax.yaxis.set_major_locator(matplotlib.ticker.LogLocator(subs=(1.0, 2.0, 3.0, 5.0, 7.0)))
    ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v / 1000:g} KB"))
    ax.yaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax.set_xlabel("wall time (minutes)")
    ax.set_ylabel("bytes of the best file so far (log)")
    ax.set_title(title, fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("case", type=Path, nargs="?", default=ROOT / "corpora/mfconv_pos",
                    help="a corpus case directory (repro.hip, flags)")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--minutes", type=float, default=60.0, help="wall time given to each variant")
    ap.add_argument("--sample", type=float, default=15.0, help="seconds between size samples")
    ap.add_argument("--baseline-rev", default=BASELINE_REV,
                    help="git revision of 'ours without the new mechanism', run from a worktree")
    ap.add_argument("--baseline-args", help="instead of a revision: extra reduce options for the current tree, "
                                            "shell-quoted (e.g. \"--passes ...\" or a switch for the mechanism)")
    ap.add_argument("--ours-args", default="", help="extra reduce options for 'ours', shell-quoted")
    ap.add_argument("--only", help="comma-separated subset of " + ",".join(VARIANTS))
    ap.add_argument("--plot", type=Path, default=ROOT / "benchmarks/realstyle_vs_cvise.png")
    ap.add_argument("--keep", type=Path, help="copy the three results and logs here")
    ap.add_argument("--one-at-a-time", action="store_true",
                    help="run the variants in turn, each alone on the machine for --minutes, instead of all at once")
    ap.add_argument("--grace", type=float, default=300.0, help="seconds a SIGTERMed reducer gets for its report")
    ap.add_argument("--table-names", default=",".join(TABLE_NAMES),
                    help="identifiers whose presence means the config table is left")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per compile, for every reducer")
    args = ap.parse_args()
    variants = tuple(v for v in (args.only.split(",") if args.only else VARIANTS))
    if unknown := set(variants) - set(VARIANTS):
        raise SystemExit(f"unknown variant(s): {', '.join(sorted(unknown))}")
    if "cvise" in variants and shutil.which("cvise") is None:
        raise SystemExit("cvise not found (apt-get install -y cvise)")
    case = args.case.resolve()
    repro = case / "repro.hip"
    flags = absolute_flags(shlex.split((case / "flags").read_text()))
    # a case whose effect is not the default spill differential says which predicate holds on it
    predicate = (case / "predicate").read_text().strip() if (case / "predicate").exists() else None
    oracle_args = [*(["--predicate", predicate] if predicate else []), "--timeout", str(args.timeout)]
    limit = args.minutes * 60
    table_names = tuple(n for n in args.table_names.split(",") if n)

    with tempfile.TemporaryDirectory(prefix="realstyle-") as d:
        work = Path(d)
        flat, _ = flatten(repro, repro.read_bytes(), include_dirs(flags, ROOT))
        src = work / "repro.hip"  # C-Vise's start = what ours starts from after flattening
        src.write_bytes(flat)
        start_bytes, start_tokens = len(flat), count_tokens(flat)
        report = run_check(src, flags, predicate=predicate, timeout=max(600.0, args.timeout))
        targets = [k["name"] for k in report["kernels"] if k["interesting"]]
        if not targets:
            raise SystemExit("the flattened case is not interesting")

        labels = {"ours": f"ours ({_rev(ROOT)})", "cvise": "C-Vise " + _cvise_version()}
        reducers: dict[str, Reducer] = {}
        baseline_tree = None
        if "ours" in variants:
            reducers["ours"] = Reducer("ours", ROOT, repro, flags, [*oracle_args, *shlex.split(args.ours_args)],
                                       args.jobs, work)
        if "baseline" in variants:
            if args.baseline_args is not None:
                reducers["baseline"] = Reducer("baseline", ROOT, repro, flags,
                                               [*oracle_args, *shlex.split(args.baseline_args)], args.jobs, work)
                labels["baseline"] = f"ours without the mechanism ({_rev(ROOT)} {args.baseline_args})"
            else:
                baseline_tree = git_worktree(args.baseline_rev, work / "baseline-tree")
                reducers["baseline"] = Reducer("baseline", baseline_tree, repro, flags, oracle_args, args.jobs, work)
                labels["baseline"] = f"ours without the mechanism ({_rev(baseline_tree)})"
        print(f"case {case.name}: flattened {start_bytes} bytes, {start_tokens} tokens; targets: {len(targets)} "
              f"kernel(s); {args.minutes:g} min at -j {args.jobs}"
              f"{', one at a time' if args.one_at_a_time else ''}; load average {_load()}", flush=True)
        for v in variants:
            print(f"  {v}: {labels[v]}", flush=True)

        files = {v: (reducers[v].out if v in reducers else work / "cvise" / src.name) for v in variants}
        samples: dict[str, list[tuple[float, int]]] = {v: [(0.0, start_bytes)] for v in variants}
        loads = [_load()]
        began: dict[str, float] = {}  # variant: when it started (samples are seconds since then)
        ends: dict[str, float] = {}  # variant: seconds it ran
        done = threading.Event()

        def sampler() -> None:
            while not done.wait(args.sample):
                now = time.monotonic()
                for v in [v for v in began if v not in ends]:
                    try:
                        size = files[v].stat().st_size
                    except OSError:
                        continue
                    if size and size != samples[v][-1][1]:
                        samples[v].append((now - began[v], size))
                loads.append(_load())

        cvise_row: dict = {}

        def cvise() -> None:
            cvise_row.update(run_cvise(src, flags, " ".join(targets), args.jobs, lambda: limit, work, predicate,
                                       args.timeout))

        def run_group(group: list[str]) -> None:
            """Start `group` together, stop whatever still runs after `limit` s."""
            t0 = time.monotonic()
            began.update(dict.fromkeys(group, t0))
            runs = [reducers[v] for v in group if v in reducers]  # ours and the baseline
            cv = threading.Thread(target=cvise) if "cvise" in group else None
            for r in runs:
                r.launch()
            if cv is not None:
                cv.start()
            while time.monotonic() - t0 < limit and (any(r.poll() for r in runs) or (cv is not None and not cvise_row)):
                time.sleep(1.0)
            stop_all(runs, args.grace)
            if cv is not None:
                cv.join()
            for v in group:  # the final size, at the variant's own end
                ends[v] = min(time.monotonic() - t0, limit)
                if files[v].exists() and files[v].stat().st_size != samples[v][-1][1]:
                    samples[v].append((ends[v], files[v].stat().st_size))

        groups = [[v] for v in variants] if args.one_at_a_time else [list(variants)]
        try:
            threading.Thread(target=sampler, daemon=True).start()
            for group in groups:
                run_group(group)
        finally:
            done.set()
            for r in reducers.values():
                if r.proc is not None and r.proc.poll() is None:
                    os.killpg(r.proc.pid, signal.SIGKILL)
            if baseline_tree is not None:
                remove_worktree(baseline_tree)
        end = max(ends.values())

        rows: dict[str, dict] = {}
        for v in variants:
            if v == "cvise":
                row = {"tests": cvise_row.get("calls"), "wall": cvise_row.get("wall", ends["cvise"]),
                       "finished": cvise_row.get("finished", False), "path": cvise_row.get("result")}
            else:
                row = reducers[v].result()
            path = row["path"]
            text = path.read_bytes() if path is not None and path.exists() else flat
            row.update(bytes=len(text), tokens=count_tokens(text), **kernel_shape(text, table_names))
            check = work / f"check-{v}.hip"
            check.write_bytes(text)
            row["interesting"] = run_check(check, flags, predicate=predicate,
                                           timeout=max(600.0, args.timeout))["interesting"]
            rows[v] = row
            if args.keep:
                args.keep.mkdir(parents=True, exist_ok=True)
                (args.keep / f"{v}.hip").write_bytes(text)
                if v in reducers and reducers[v].log.exists():
                    shutil.copy(reducers[v].log, args.keep / f"{v}.log")

        how = "one at a time" if args.one_at_a_time else "side by side"
        title = (f"{case.name}: {start_bytes} B flattened, -j {args.jobs} each, {args.minutes:g} min {how}; "
                 f"load {min(loads):.1f}-{max(loads):.1f}")
        args.plot.parent.mkdir(parents=True, exist_ok=True)
        plot(samples, labels, title, args.plot)
        with open(args.plot.with_suffix(".csv"), "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["variant", "seconds", "bytes"])
            for v in variants:
                w.writerows([v, round(t, 1), b] for t, b in samples[v])

    print(f"\nload average during the run: {min(loads):.1f}-{max(loads):.1f} (2 cores)")
    print(f"plot: {args.plot}  samples: {args.plot.with_suffix('.csv')}\n")
    marks = [m for m in CHECKPOINTS_MIN if m * 60 < min(end, limit) - 1]
    print("| minute | " + " | ".join(labels[v] for v in variants) + " |")
    print("|---" * (len(variants) + 1) + "|")
    for m in marks:
        print(f"| {m} | " + " | ".join(str(_size_at(samples[v], m * 60)) for v in variants) + " |")
    print(f"| {end / 60:.1f} (end) | " + " | ".join(str(samples[v][-1][1]) for v in variants) + " |")
    print()
    print(f"| case | reducer | bytes (flattened) | tokens (flattened) | tests run | wall s (-j {args.jobs}) | finished "
          f"| __global__ kernels | one plain kernel, no config table | `reduce check` |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for v in variants:
        r = rows[v]
        no_table = "yes" if r["plain"] and not r["table"] else "no" + (f" (table: {', '.join(r['table'])})" if r["table"] else "")
        print(f"| {case.name} | {labels[v]} | {r['bytes']} ({start_bytes}) | {r['tokens']} ({start_tokens}) "
              f"| {r['tests'] if r['tests'] is not None else '?'} | {r['wall']:.0f} | {'yes' if r['finished'] else 'stopped'} "
              f"| {r['kernels']} | {no_table} | {'interesting' if r['interesting'] else 'NOT interesting'} |", flush=True)


def _size_at(pts: list[tuple[float, int]], t: float) -> int:
    """Size of the best file at time t (the last sample not after t)."""
    size = pts[0][1]
    for when, b in pts:
        if when > t:
            break
        size = b
    return size


def _rev(tree: Path) -> str:
    r = subprocess.run(["git", "-C", str(tree), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    dirty = subprocess.run(["git", "-C", str(tree), "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True).stdout.strip()
    return (r.stdout.strip() or "?") + ("+changes" if dirty else "")


def _cvise_version() -> str:
    r = subprocess.run(["cvise", "--version"], capture_output=True, text=True)
    return r.stdout.split()[1] if r.returncode == 0 and len(r.stdout.split()) > 1 else "?"


def _load() -> float:
    return os.getloadavg()[0]


if __name__ == "__main__":
    main()
