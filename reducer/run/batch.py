"""`reduce batch MANIFEST.toml`: many cases, each a `reduce` run of its own in a child process
(so one case's crash or bad input cannot take the others down), several at once if asked,
resumable as a whole (finished cases are skipped, stopped ones resumed), one report at the end.

    parallel = 2                    # cases at once
    [defaults]                      # options for every case: any `reduce run` option, named as
                                    # in run.json (reducer/run/options.py), `test` and `kernel` aside
    jobs = 2
    time_budget = "2h"
    skip_passes = ["rebase-index"]  # --skip-passes (a list, or "a,b"); likewise `passes`

    [[case]]
    name = "c120"                   # its work directory: OUT/c120, its result: OUT/c120.hip
    file = "corpora/wgrad_c120_pos/repro.hip"
    flags_file = "corpora/wgrad_c120_pos/flags"   # or flags = ["-std=gnu++20", ...]

    [[case]]
    name = "diag"
    file = "corpora/cxx_diag/case.cpp"
    test = "corpora/cxx_diag/test.sh"      # --test; include_dirs = ["inc"] for -I, kernel = [...] likewise

Paths are relative to the manifest's directory, which is also the cases' working directory
(where relative compile flags point) unless a case or [defaults] sets `cwd`.
"""
from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
import sys
import threading
import tomllib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..text.files import atomic_write
from .exits import EXIT_BUDGET, EXIT_INTERRUPTED
from .options import FIELDS, Option
from .workdir import RUN_FILE, WorkDir

_OPTIONS = {o.manifest_key: o for o in FIELDS}  # every option of a run, under its manifest key
_CASE_KEYS = {"name", "file", "flags", "flags_file", "cwd", *_OPTIONS}
_NAME = re.compile(r"^[A-Za-z0-9_.-]+$")


class ManifestError(Exception):
    pass


@dataclass
class Case:
    name: str
    file: Path
    cwd: Path
    args: list[str]  # `reduce run` options
    flags: list[str] = field(default_factory=list)


@dataclass
class BatchResult:
    report: Path
    all_ok: bool


def load(manifest: Path) -> tuple[list[Case], dict[str, Any]]:
    try:
        data = tomllib.loads(manifest.read_text())
    except FileNotFoundError:
        raise ManifestError(f"no such manifest: {manifest}") from None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise ManifestError(f"cannot read manifest {manifest}: {e}") from None
    base = manifest.absolute().parent
    defaults = data.get("defaults", {})
    raw = data.get("case")
    if not isinstance(raw, list) or not raw:
        raise ManifestError(f"{manifest}: no [[case]] tables")
    cases, names = [], set()
    for i, entry in enumerate(raw, 1):
        spec = {**defaults, **entry}
        unknown = set(spec) - _CASE_KEYS
        if unknown:
            raise ManifestError(f"{manifest}: case {i}: unknown key(s) {', '.join(sorted(unknown))}")
        for key in ("name", "file"):
            if not isinstance(spec.get(key), str):
                raise ManifestError(f"{manifest}: case {i}: `{key}` (a string) is required")
        name = spec["name"]
        if not _NAME.match(name) or name in names:
            raise ManifestError(f"{manifest}: case {i}: name {name!r} must be unique and use only A-Z a-z 0-9 _ . -")
        names.add(name)
        cases.append(_case(spec, base))
    return cases, {k: v for k, v in data.items() if k not in ("defaults", "case")}


def _case(spec: dict[str, Any], base: Path) -> Case:
    args: list[str] = []
    for key, option in _OPTIONS.items():
        if key in spec:
            try:
                args += _arguments(option, spec[key], base)
            except ValueError as e:
                raise ManifestError(f"case {spec['name']}: `{key}`: {e}") from None
    flags = list(spec.get("flags", []))
    if "flags_file" in spec:
        try:
            flags += shlex.split((base / spec["flags_file"]).read_text())
        except OSError as e:
            raise ManifestError(f"case {spec['name']}: cannot read flags_file: {e}") from None
    return Case(spec["name"], base / spec["file"], base / spec.get("cwd", "."), args, flags)


def _arguments(option: Option, value: Any, base: Path) -> list[str]:
    """The `reduce run` arguments that give `option` a manifest's value: a switch on or off, a
    list as one a,b argument (its items checked here) or as the option repeated, a path relative
    to the manifest's directory. Anything else is checked by `reduce run` itself."""
    param = option.click_param()
    if param.is_flag:
        on = bool(value) == option.attrs.get("flag_value", True)
        spelling = param.opts[0] if on else next(iter(param.secondary_opts), None)
        return [spelling] if spelling else []
    if option.comma:
        names = [n.strip() for v in (value if isinstance(value, list) else [value]) for n in str(v).split(",")]
        value = ",".join(n for n in names if n)
        if option.parse is not None:
            option.parse(value)
    values = value if param.multiple and isinstance(value, list) else [value]
    return [a for v in values for a in (param.opts[0], str(base / v) if option.relative else str(v))]


def run_batch(cases: list[Case], out: Path, parallel: int, echo: Callable[[str], None]) -> BatchResult:
    out.mkdir(mode=0o700, parents=True, exist_ok=True)
    state_path = out / "batch.json"
    state = json.loads(state_path.read_text()) if state_path.exists() else {}
    lock = threading.Lock()
    children = _Children()

    def one(case: Case) -> None:
        record = _run_case(case, out, echo, children)
        with lock:
            state[case.name] = record
            atomic_write(state_path, (json.dumps(state, indent=1) + "\n").encode())

    pool = ThreadPoolExecutor(max_workers=parallel)
    try:
        for f in [pool.submit(one, c) for c in cases]:
            f.result()
    except KeyboardInterrupt:
        # Ctrl-C or SIGTERM: stop every case cleanly (each keeps its best and stays resumable)
        # before waiting for the threads
        pool.shutdown(wait=False, cancel_futures=True)
        children.stop()
        pool.shutdown(wait=True)
        raise
    pool.shutdown()
    return BatchResult(_report(cases, out, state), all(state[c.name]["outcome"] == "done" for c in cases))


class _Children:
    """The cases' processes. They run in sessions of their own (a Ctrl-C at the terminal reaches
    the batch, which stops them cleanly), so a stop must signal each; a case whose thread was
    about to start it when the stop came is never started."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running: set[subprocess.Popen] = set()
        self._stopped = False

    def start(self, cmd: list[str], **popen: Any) -> subprocess.Popen | None:
        with self._lock:
            if self._stopped:
                return None
            child = subprocess.Popen(cmd, start_new_session=True, **popen)
            self._running.add(child)
            return child

    def wait(self, child: subprocess.Popen) -> int:
        code = child.wait()
        with self._lock:
            self._running.discard(child)
        return code

    def stop(self) -> None:
        with self._lock:
            self._stopped = True
            for child in self._running:
                child.send_signal(signal.SIGTERM)


def _run_case(case: Case, out: Path, echo: Callable[[str], None], children: _Children) -> dict[str, Any]:
    workdir = out / case.name
    output = out / f"{case.name}{case.file.suffix}"
    reduce = [sys.executable, "-m", "reducer.cli"]
    if (workdir / RUN_FILE).is_file():
        if WorkDir.open(workdir).state().outcome == "done":
            echo(f"[batch] {case.name}: finished in an earlier batch run")
            return {"outcome": "done", "code": 0, "workdir": str(workdir)}
        cmd, verb = [*reduce, "resume", str(workdir), "--json"], "resuming"
    else:
        cmd = [*reduce, "run", str(case.file), "-o", str(output), "--workdir", str(workdir), "--json", *case.args]
        cmd += ["--", *case.flags] if case.flags else []
        verb = "starting"
    echo(f"[batch] {case.name}: {verb}")
    log = out / f"{case.name}.log"
    with open(log, "ab") as sink:
        child = children.start(cmd, cwd=case.cwd, stdout=sink, stderr=sink, env={**os.environ, "PYTHONUNBUFFERED": "1"})
        code = EXIT_INTERRUPTED if child is None else children.wait(child)
    error = _last_error(log) if code not in (0, EXIT_BUDGET) else ""
    outcome = {0: "done", EXIT_BUDGET: "stopped by budget", EXIT_INTERRUPTED: "interrupted"}.get(code, "failed")
    echo(f"[batch] {case.name}: {outcome}" + (f": {error}" if error else ""))
    return {"outcome": outcome, "code": code, "error": error, "workdir": str(workdir), "log": str(log)}


def _last_error(log: Path) -> str:
    lines = log.read_text(errors="replace").strip().splitlines()
    errors = [line.removeprefix("Error: ") for line in lines if line.startswith("Error: ")]
    return errors[-1] if errors else (lines[-1] if lines else "no output")


def _report(cases: list[Case], out: Path, state: dict[str, Any]) -> Path:
    rows, summaries = [], {}
    for c in cases:
        record = state.get(c.name, {"outcome": "not run"})
        summary_path = out / c.name / "summary.json"
        s = json.loads(summary_path.read_text()) if summary_path.exists() and record["outcome"] != "failed" else None
        summaries[c.name] = {**record, "summary": s}
        if s:
            b, t = s["bytes"], s["tokens"]  # the start is the original with its project headers flattened in
            rows.append(f"| {c.name} | {record['outcome']} | {b['start']} -> {b.get('reduced', b['result'])} "
                        f"({b['result']} written) | {t['start']} -> {t.get('reduced', t['result'])} | {s['tests']} | "
                        f"{s['wall_seconds']:.0f} | [report]({c.name}/report.md) |")
        else:
            rows.append(f"| {c.name} | **{record['outcome']}** | | | | | {record.get('error', '')} |")
    text = "\n".join(["# Batch report", "", "| case | outcome | bytes: start -> reduced (file written, finished) "
                      "| tokens | tests | wall s | |", "|---|---|---|---|---|---|---|", *rows, ""])
    atomic_write(out / "summary.json", (json.dumps(summaries, indent=1) + "\n").encode())
    atomic_write(out / "report.md", text.encode())
    return out / "report.md"
