#!/usr/bin/env python3
"""Soak run: one long reduction under a time budget, with the temp files and open file
descriptors of the run (the reducer and its worker processes) counted every minute. Both must
stay flat, and nothing may be left at the end.

    .venv/bin/python benchmarks/soak.py corpora/wgrad_c120_pos --budget 30m -j 2
"""
from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def tree(pid: int) -> list[int]:
    """pid and all its descendants, from /proc."""
    children: dict[int, list[int]] = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                ppid = int((d / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(d.name))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo += children.get(p, [])
    return out


def open_fds(pids: list[int]) -> int:
    n = 0
    for p in pids:
        try:
            n += len(os.listdir(f"/proc/{p}/fd"))
        except OSError:
            pass
    return n


def files_under(*dirs: Path) -> int:
    return sum(len(files) + len(subdirs) for d in dirs if d.exists() for _, subdirs, files in os.walk(d))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("case", type=Path)
    ap.add_argument("--budget", default="30m")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--every", type=float, default=60.0, help="seconds between samples")
    args = ap.parse_args()
    case = args.case.resolve()
    with tempfile.TemporaryDirectory(prefix="soak-") as d:
        work = Path(d)
        tmpdir = work / "tmpdir"
        tmpdir.mkdir()
        out = work / "result.hip"
        cmd = [str(ROOT / ".venv/bin/reduce"), str(case / "repro.hip"), "-o", str(out), "-j", str(args.jobs), "-q",
               "--time-budget", args.budget, "--no-cache", "--", *shlex.split((case / "flags").read_text())]
        proc = subprocess.Popen(cmd, cwd=ROOT, env={**os.environ, "TMPDIR": str(tmpdir)},
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        workdir = Path(str(out) + ".work")
        start = time.monotonic()
        print("| minute | processes | open fds | temp entries (workdir/tmp) | temp entries ($TMPDIR) | best bytes |")
        print("|---|---|---|---|---|---|")
        while proc.poll() is None:
            pids = tree(proc.pid)
            size = out.stat().st_size if out.exists() else 0
            print(f"| {(time.monotonic() - start) / 60:.0f} | {len(pids)} | {open_fds(pids)} | "
                  f"{files_under(workdir / 'tmp')} | {files_under(tmpdir)} | {size} |", flush=True)
            try:
                proc.wait(timeout=args.every)
            except subprocess.TimeoutExpired:
                pass
        err = proc.stderr.read()
        time.sleep(2)
        leftover = [p for p in tree(proc.pid) if p != proc.pid]
        print(f"\nexit {proc.returncode} after {(time.monotonic() - start) / 60:.1f} min; "
              f"left behind: {files_under(workdir / 'tmp')} entries in workdir/tmp, {files_under(tmpdir)} in "
              f"$TMPDIR, {len(leftover)} processes")
        print("\n".join(line for line in err.splitlines() if line.startswith(("budget", "done", "  "))))


if __name__ == "__main__":
    main()
