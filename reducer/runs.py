"""One reduction run from its configuration to its report: start it, or resume it from its work
directory. The CLI and batches only build a RunConfig and call `start` or `resume`."""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from interestingness import bundle
from interestingness.bundle import Tree
from interestingness.check import run_check
from interestingness.compile import TREE_DIR
from interestingness.predicates import DEFAULT_PREDICATE, PredicateError
from interestingness.script import ScriptError, ScriptOracle
from interestingness.spill import OracleSetupError, SpillOracle
from interestingness.toolchain import ToolchainError
from interestingness.verdict import Verdict

from . import bugreport, fileset, stopping
from .budget import Budget, BudgetExhausted
from .cache import VerdictCache, default_cache_dir
from .engine import Engine, Hooks, PassBug, Replay, Status
from .exits import (
    EXIT_BUDGET,
    EXIT_INPUT,
    EXIT_INTERRUPTED,
    EXIT_IO,
    EXIT_NOT_INTERESTING,
    EXIT_ORIGINAL_TIMEOUT,
    EXIT_TEST,
    EXIT_UNSTABLE,
)
from .evaluate import Evaluator
from .files import atomic_write
from .finish import clang_format, finish
from .flatten import flatten
from .lexer import count_tokens
from .options import RunConfig
from .progress import Progress
from .report import write_report
from .schedule import Schedule
from .source import Source, language_for
from .values import ClangValues
from .workdir import WorkDir, WorkDirError

PASS_BUGS = "pass-bugs"  # WORKDIR/pass-bugs/N/: what reproduces the N-th pass that raised


class RunError(Exception):
    def __init__(self, message: str, code: int):
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class Display:
    """How a run talks to its user; not part of the run's configuration."""

    quiet: bool = False
    json_lines: bool = False


def read_input(file: Path) -> bytes:
    try:
        return file.read_bytes()
    except FileNotFoundError:
        raise RunError(f"no such file: {file}", EXIT_INPUT) from None
    except IsADirectoryError:
        raise RunError(f"is a directory, not a file: {file}", EXIT_INPUT) from None
    except OSError as e:
        raise RunError(f"cannot read {file}: {e.strerror}", EXIT_INPUT) from None


def check_output(file: Path, output: Path, force: bool) -> None:
    """Never write over the input, nor over an existing file without `force`."""
    if output.resolve() == file.resolve():
        raise RunError(f"refusing to write the result over the input file {file}", EXIT_INPUT)
    if output.exists() and not force:
        raise RunError(f"output {output} exists; remove it, choose another -o, or pass --force", EXIT_INPUT)
    if not output.parent.is_dir():
        raise RunError(f"output directory does not exist: {output.parent}", EXIT_INPUT)


def default_workdir(output: Path) -> Path:
    return output.with_name(output.name + ".work")


def start(config: RunConfig, workdir: Path, *, force: bool = False, display: Display = Display()) -> int:
    """A new run. Setup failures (bad input, not interesting) remove the fresh work directory.
    Without flattening, a file with project headers is reduced with them as one file set: its
    original is then the bundle of all their texts as they are now."""
    file, output = Path(config.file), Path(config.output)
    text = read_input(file)
    check_output(file, output, force)
    files = None if config.flattens else _collect(config, file, text)
    if files is not None and fileset.output_tree(output).exists() and not force:
        raise RunError(f"output directory {fileset.output_tree(output)} exists; remove it, choose another -o, "
                       "or pass --force", EXIT_INPUT)
    try:
        wd = WorkDir.create(workdir, asdict(config), force=force)
    except (WorkDirError, OSError) as e:
        raise RunError(str(e), EXIT_INPUT) from None
    if files is not None:
        tree, text = files
        wd.save_state({"tree": {"root": tree.root, "main": tree.main}})
    wd.write("original", text)
    try:
        return _execute(config, wd, display)
    except RunError:
        if not wd.state().get("started"):
            shutil.rmtree(wd.path, ignore_errors=True)
        raise


def _collect(config: RunConfig, file: Path, text: bytes) -> tuple[Tree, bytes] | None:
    try:
        return fileset.collect(file, text, config.header_dirs(Path(config.cwd)))
    except OSError as e:
        raise RunError(f"cannot read a header of {file}: {e}", EXIT_INPUT) from None


def tree_of(state: dict) -> Tree | None:
    """The file set's tree of a multi-file run, None for a one-file run."""
    return Tree(**state["tree"]) if state.get("tree") else None


def resume(workdir: Path, *, display: Display = Display(), **overrides: Any) -> int:
    """Continue a run from its work directory; `overrides` (jobs, budgets) replace stored values."""
    try:
        wd = WorkDir.open(workdir)
    except WorkDirError as e:
        raise RunError(str(e), EXIT_INPUT) from None
    changes = {k: v for k, v in overrides.items() if v is not None}
    if changes:
        wd.update_config(**changes)
    state = wd.state()
    if state.get("outcome") == "done":  # a kill may have come while its report was written
        shutil.rmtree(wd.path / "tmp", ignore_errors=True)
        if state.get("metrics"):
            bugreport.write(wd, state["metrics"]["result"], result_files(wd, state))
        report = write_report(wd)
        Progress(None, quiet=display.quiet).say(f"{workdir}: this run has finished; the result is "
                                                f"{wd.config['output']}, the report {report}")
        return 0
    return _execute(RunConfig.from_dict(wd.config), wd, display)


def _execute(config: RunConfig, wd: WorkDir, display: Display) -> int:
    os.chdir(config.cwd)
    original = wd.read("original")
    state = wd.state()
    keep = config.keep_artifacts is not None
    tmp_parent = Path(config.keep_artifacts) if keep else wd.path / "tmp"
    if not keep:
        shutil.rmtree(tmp_parent, ignore_errors=True)  # leftovers of a killed session
    tmp_parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    tmp_root = Path(tempfile.mkdtemp(prefix="reduce-", dir=tmp_parent))
    try:
        journal = wd.journal()
    except (OSError, WorkDirError) as e:
        shutil.rmtree(tmp_parent if not keep else tmp_root, ignore_errors=True)
        raise RunError(f"cannot use the journal of {wd.path}: {e}", EXIT_INPUT) from None
    budget = Budget(config.time_budget, config.max_tests, spent_seconds=journal.elapsed, spent_tests=journal.tests)
    ui = Progress(None, quiet=display.quiet or display.json_lines, json_lines=display.json_lines,
                  log=wd.log, budget=budget)
    try:
        oracle = _oracle(config, original, state, tmp_root, ui)
        identity = hashlib.sha256(json.dumps(oracle.identity(), sort_keys=True, default=str).encode()).hexdigest()
        if state.setdefault("oracle_identity", identity) != identity:
            raise RunError("the oracle changed since this run started (toolchain, script, headers, flags or "
                           "environment); its verdicts no longer apply: start a new run", EXIT_TEST)
        cache = _cache(config, oracle)
        values = _values(config, oracle, cache, wd)
        # a claim is stale once its owner could have finished both compiles of a test
        with Evaluator(oracle, config.jobs, config.backend, cache, config.scheduler, journal, budget,
                       stale_after=2 * config.timeout + 60, allow_empty=config.allow_empty,
                       recheck=config.recheck if config.recheck is not None else not config.builtin) as evaluator:
            ui.counters = evaluator.counters
            with ui:
                return _Session(config, wd, state, evaluator, ui, original, values).run()
    finally:
        journal.close()
        if not keep:
            shutil.rmtree(tmp_parent, ignore_errors=True)


class _Session:
    """One session of a run: pick the start text, run the engine, record everything."""

    def __init__(self, config: RunConfig, wd: WorkDir, state: dict, evaluator: Evaluator, ui: Progress,
                 original: bytes, values: ClangValues | None = None):
        self.config, self.wd, self.state, self.evaluator, self.ui = config, wd, state, evaluator, ui
        self.values = values
        self.original = original
        self.tree = tree_of(state)
        # a file set's parts: its files, main first; a single file is the one part
        self.names = [n for n, _ in bundle.decode(original)] if self.tree else [Path(config.file).name]
        self.main = fileset.main_text(original) if self.tree else original
        self.language = language_for(Path(config.file), self.main)
        # Replay re-derives accepts, bytes and the candidates rejected without a test. Tests come
        # from the journal, which names the pass of each; seconds from the earlier sessions' state.
        self.earlier = state.get("per_pass", {})
        self.earlier_tests = dict(evaluator.journal.tests_by) if evaluator.journal is not None else {}
        self.pass_bugs: dict[int, dict] = {b["number"]: b for b in state.get("pass_bugs", [])}
        self.engine: Engine | None = None
        self._values_per_sweep: list[dict] = []  # front-end runs and seconds; index 0: the first passes
        self._values_done, self._values_sweep = (0, 0.0), 0

    def run(self) -> int:
        config, wd, state, ui = self.config, self.wd, self.state, self.ui
        ui.say(f"{'resuming' if state.get('started') else 'reducing'} {config.file}: {len(self.main)} bytes, "
               f"{count_tokens(self.main)} tokens, language {self.language}, "
               f"{Source(self.main, self.language).error_count} parse error node(s); work directory {wd.path}")
        if self.tree:
            ui.say(f"with its {len(self.names) - 1} project header(s), as one file set of "
                   f"{bundle.total_size(self.original)} bytes (root {self.tree.root}); reduced headers go to "
                   f"{fileset.output_tree(Path(config.output))}/")
        text = wd.read("start")
        if text is None:
            text = self._start_text()
            wd.write("start", text)
        state.update(started=True)
        self.history: list[list[float]] = state.setdefault("history", [[self.evaluator.budget.elapsed(),
                                                                        self._size(text)]])
        schedule = Schedule.from_registry(config.passes, rename=config.rename, skip=config.skip_passes,
                                          adaptive=config.adaptive_sweeps)
        cap = config.pass_time_cap if config.pass_time_cap is not None else (
            config.time_budget / 4 if config.time_budget else None)
        replay = Replay(caps={int(k): v for k, v in state.get("caps", {}).items()},
                        bugs={b["run"]: b["searches"] for b in self.pass_bugs.values()}, pass_time_cap=cap)
        self.engine = Engine(self.evaluator, self.language, schedule, replay=replay, values=self.values,
                             hooks=Hooks(on_accept=self._accepted, on_event=self._event, on_pass_bug=self._pass_bug),
                             prefilter=config.prefilter)
        output = Path(config.output)
        try:
            self._write_result(wd.read("best") or text)
            if self.tree:
                members = bundle.decode(text)
                self.engine.reduce_parts([t for _, t in members], [language_for(Path(n), t) for n, t in members],
                                         lambda parts: bundle.encode(list(zip(self.names, parts))))
            else:
                self.engine.reduce(text)
            stopping.check()  # a stop whose interrupt was lost on the way
            outcome, code = "done", 0
        except KeyboardInterrupt:
            outcome, code = "interrupted", EXIT_INTERRUPTED
        except BudgetExhausted as e:
            outcome, code = f"budget: {e}", EXIT_BUDGET
        except OSError as e:  # disk full, quota, a vanished directory: the last written best file stands
            raise RunError(f"stopped: cannot write the run's files ({e.strerror or e}: {e.filename or ''}); "
                           f"the best result so far is intact in {output}", EXIT_IO) from None
        result = reduced = self.engine.result()
        try:
            self._save(outcome)
            if code == 0:
                result, outcome, code = self._finish(reduced, text)
            if code != EXIT_INTERRUPTED:
                self._final_check(result)
                if config.builtin:
                    ui.say("measuring the original and the result for the report...")
                    _metrics(config, self.evaluator.oracle, self.original, result, state)
                    self._save(outcome)
                    ui.say(f"bug report: {bugreport.write(wd, state['metrics']['result'], result_files(wd, state))}/")
                self._save(outcome)
            report = write_report(wd)
        except OSError as e:
            raise RunError(f"{outcome}, but the report cannot be written ({e.strerror or e}); the result is "
                           f"intact in {output}", EXIT_IO) from None
        ui.summary(Path(config.file), output, self.original, text, reduced, outcome, report,
                   files=fileset.sizes(self.original, result) if self.tree else None,
                   tree=fileset.output_tree(output) if self.tree else None, finished=state.get("finish"),
                   per_pass=self.per_pass())
        return code

    def _finish(self, reduced: bytes, start: bytes) -> tuple[bytes, str, int]:
        """Hygiene and formatting of the reduced result (reducer/finish.py); the final text is the
        output (and WORKDIR/final), the reduced one stays the best. A stop in the middle keeps the
        reduced result and leaves the run resumable."""
        split = (lambda c: [t for _, t in bundle.decode(c)]) if self.tree else (lambda c: [c])
        join = (lambda parts: bundle.encode(list(zip(self.names, parts)))) if self.tree else (lambda parts: parts[0])
        parts = split(reduced)
        tool = clang_format(getattr(getattr(self.evaluator.oracle, "toolchain", None), "clang", None)) \
            if self.config.format else None
        if self.config.format:
            self.ui.say("finishing: hygiene rewrites and clang-format, each kept when still interesting...")
        try:
            done = finish(parts, [language_for(Path(n), t) for n, t in zip(self.names, parts)], split(start),
                          lambda candidate: self.evaluator.test(join(candidate)).interesting,
                          format_with=tool, style_file=Path(self.config.file)) if self.config.format else None
        except KeyboardInterrupt:
            return reduced, "interrupted", EXIT_INTERRUPTED
        except BudgetExhausted as e:
            return reduced, f"budget: {e}", EXIT_BUDGET
        if done is None:
            final = reduced
        else:
            final = join(done.parts)
            self.state["finish"] = done.summary()
            if self.config.format and tool is None:
                self.state["finish"]["notes"].append("no clang-format found (Debian: clang-format-22); not formatted")
            for note in self.state["finish"]["notes"]:
                self.ui.say(f"note: {note}")
        self._write_result(final, reduced if self.tree else None)
        self.wd.write("final", final)
        return final, "done", 0

    def _start_text(self) -> bytes:
        """The text the engine starts from, once the test is known to be sane."""
        text = self._interesting_start()
        if not self.config.allow_empty:
            self._refuse_a_test_that_accepts_anything()
        return text

    def _refuse_a_test_that_accepts_anything(self) -> None:
        """One test of the empty file (a file set: every file empty). A test calling it interesting
        would let a reduction end at nothing: it is almost always a broken script."""
        empty = bundle.encode([(name, b"") for name in self.names]) if self.tree else b""
        if self.evaluator.test_repeatedly(empty, 1, within_budget=False)[0].interesting:
            raise RunError("the test accepts an empty file: it is almost certainly broken (use --allow-empty if "
                           "you mean it)", EXIT_NOT_INTERESTING)

    def _interesting_start(self) -> bytes:
        """The flattened file when it is (stably) interesting, else the file as it is."""
        config, ui = self.config, self.ui
        if config.flattens:
            flat, headers = flatten(Path(config.file), self.original, config.header_dirs(Path.cwd()))
            if headers:
                ui.say(f"flattened {len(headers)} header(s) into one file of {len(flat)} bytes")
                verdict = self._stable_verdict(flat, "the flattened file")
                if verdict.interesting:
                    return flat
                ui.say(f"the flattened file is not interesting ({verdict.reason}); reducing the file as it is")
        verdict = self._stable_verdict(self.original, "the original")
        if verdict.interesting:
            return self.original
        if verdict.reason.startswith("timeout"):
            raise RunError(f"the test times out on the original ({verdict.reason}); raise --timeout",
                           EXIT_ORIGINAL_TIMEOUT)
        tail = verdict.details.get("stderr_tail", "").strip().splitlines()[-3:]
        detail = ("; test said: " + " | ".join(tail)) if tail else ""
        raise RunError(f"the original is not interesting ({verdict.reason}){detail}", EXIT_NOT_INTERESTING)

    def _stable_verdict(self, text: bytes, what: str) -> Verdict:
        if self.config.check_repeat <= 1:
            return self.evaluator.test(text)
        verdicts = self.evaluator.test_repeatedly(text, self.config.check_repeat)
        if len({v.interesting for v in verdicts}) > 1:
            shown = "; ".join(("interesting" if v.interesting else f"not interesting ({v.reason})") for v in verdicts)
            raise RunError(f"the test is not stable on {what}: {len(verdicts)} runs gave {shown}", EXIT_UNSTABLE)
        return verdicts[0]

    def _final_check(self, result: bytes) -> None:
        """Re-verify the result with fresh tests (no cache), and say how it went."""
        n = max(1, self.config.check_repeat)
        verdicts = self.evaluator.test_repeatedly(result, n, within_budget=False)
        stable = all(v.interesting for v in verdicts)
        self.state["final_check"] = {"tests": n, "interesting": sum(v.interesting for v in verdicts),
                                     "reasons": [v.reason for v in verdicts if not v.interesting]}
        if not stable:
            self.ui.say(f"WARNING: the result was interesting in only {self.state['final_check']['interesting']} "
                        f"of {n} fresh tests: the test is flaky")

    def _save(self, outcome: str = "running") -> None:
        self.state["caps"] = {str(k): v for k, v in self.engine.caps.items()}
        if self.values is not None:  # this session's questions to the compiler, in all and per sweep
            self._count_values(self.engine.status.sweep if self.engine.status else 0)
            self.state["values"] = {**asdict(self.values.stats), "per_sweep": self._values_per_sweep}
        self.state["pass_bugs"] = [self.pass_bugs[n] for n in sorted(self.pass_bugs)]
        self.wd.save_state({**self.state, **_status(self.engine.status, self.evaluator, self.earlier,
                                                    self.earlier_tests), "outcome": outcome})

    def per_pass(self) -> dict[str, dict]:
        return _per_pass(self.engine.status, self.earlier, self.earlier_tests)

    def _size(self, content: bytes) -> int:
        """Bytes of the file, or of all the files of a file set."""
        return bundle.total_size(content) if self.tree else len(content)

    def _write_result(self, content: bytes, before: bytes | None = None) -> None:
        """The result file (the main file of a file set), and a file set's files in OUTPUT.files/."""
        output = Path(self.config.output)
        if self.tree:
            fileset.write_tree(fileset.output_tree(output), content, before)
            content = fileset.main_text(content)
        atomic_write(output, content)

    def _count_values(self, sweep: int) -> None:
        """Charge the front-end runs since the last pass began to the sweep it began in."""
        stats = self.values.stats
        while len(self._values_per_sweep) <= max(sweep, self._values_sweep):
            self._values_per_sweep.append({"runs": 0, "seconds": 0.0})
        row = self._values_per_sweep[self._values_sweep]
        row["runs"] += stats.runs - self._values_done[0]
        row["seconds"] = round(row["seconds"] + stats.seconds - self._values_done[1], 3)
        self._values_done, self._values_sweep = (stats.runs, stats.seconds), sweep

    def _accepted(self, content: bytes) -> None:
        before = self.wd.read("best") if self.tree else None
        self._write_result(content, before)
        self.wd.write("best", content)
        size = self._size(content)
        if size < self.history[-1][1]:  # a replayed accept is in the history already
            self.history.append([round(self.evaluator.budget.elapsed(), 3), size])
        self._save()

    def _pass_bug(self, bug: PassBug) -> None:
        """Keep what reproduces the bug in pass-bugs/N/, say so once, and go on without the pass."""
        name = self.names[bug.part]
        where = self.wd.path / PASS_BUGS / str(bug.number)
        if bug.replayed:  # an earlier session wrote it and said so
            self.wd.log(f"pass {bug.pass_name} dropped again where it raised in an earlier session ({where})")
            return
        stage = "enumerating its items" if bug.stage == "items" else "applying its items"
        self.wd.write_pass_bug(bug.number, {
            "pass": f"{bug.pass_name}\n".encode(),
            "traceback.txt": bug.traceback.encode("utf-8", "replace"),
            f"input{Path(name).suffix}": bug.text,
            **({"edits.json": _edits_json(bug.edits)} if bug.stage == "apply" else {}),
            "README.md": _bug_readme(bug, name, stage).encode(),
        })
        self.pass_bugs[bug.number] = {"number": bug.number, "pass": bug.pass_name, "run": bug.run,
                                      "searches": bug.searches, "file": name, "level": bug.level, "stage": bug.stage,
                                      "error": bug.error, "dir": str(where)}
        self.ui.say(f"BUG in pass {bug.pass_name} ({bug.error}) while {stage} on {name}: the pass is dropped for the "
                    f"rest of the run; its input and traceback are in {where}/")
        self.ui.event("pass-bug", self.engine.status)
        self._save()

    def _event(self, kind: str, status: Status) -> None:
        self.ui.event(kind, status)
        if self.values is not None and kind == "pass":
            self._count_values(status.sweep)
        if kind == "stall":
            self.ui.say(f"{self.engine.stall_window} tests in a row failed the same way; the best file, tested "
                        "again, is interesting: going on")
        elif kind == "rollback":
            stall = status.stalls[-1]
            self.ui.say(f"WARNING: the best file ({stall['size']} B) is NOT interesting when tested again "
                        f"({stall['reason'].splitlines()[0] if stall['reason'] else 'no reason given'}); back to "
                        f"the newest earlier best that is: {stall['rolled_back_to']} B")
        if kind in ("pass", "capped", "stall", "rollback"):
            self._save()


def _status(status: Status, evaluator: Evaluator, earlier: dict[str, dict],
            earlier_tests: dict[str, int]) -> dict[str, Any]:
    c = evaluator.counters
    counters = {**asdict(c), "elapsed": round(evaluator.budget.elapsed(), 3),
                "tests_total": evaluator.budget.spent_tests + c.tests}
    return {"counters": counters, "size": status.size, "accepted": status.accepted, "prefiltered": status.prefiltered,
            "position": {"sweep": status.sweep, "pass": status.current_pass, "full_sweep": status.full_sweep},
            "per_pass": _per_pass(status, earlier, earlier_tests), "stalls": status.stalls,
            "dropped_passes": status.dropped}


def _per_pass(status: Status, earlier: dict[str, dict], earlier_tests: dict[str, int]) -> dict[str, dict]:
    """Each pass's yield over all sessions: this session's replay re-derived its accepts, bytes and
    rejections; its tests add to those the journal counts for it (a state saved before a kill may
    lag behind the journal, and a journal of an older version names no pass)."""
    per_pass = {}
    for name, y in status.per_pass.items():
        before = earlier.get(name, {})
        per_pass[name] = {**asdict(y), "tests": y.tests + max(earlier_tests.get(name, 0), before.get("tests", 0)),
                          "seconds": round(y.seconds + before.get("seconds", 0.0), 3)}
    return per_pass


def _edits_json(edits: list) -> bytes:
    """The chunk's edits as the broken pass made them: whatever they hold is shown, never trusted."""
    def shown(edit: Any) -> Any:
        if not (isinstance(edit, tuple) and len(edit) == 3):
            return repr(edit)
        start, end, replacement = edit
        if isinstance(replacement, bytes):
            replacement = replacement.decode("utf-8", "backslashreplace")
        return {"start": start, "end": end, "replacement": replacement}
    return (json.dumps([shown(e) for e in edits], indent=1, default=repr) + "\n").encode()


def _bug_readme(bug: PassBug, name: str, stage: str) -> str:
    suffix = Path(name).suffix
    call = (f"REGISTRY[{bug.pass_name!r}].items(Source(open('input{suffix}', 'rb').read(), {bug.language!r}), "
            f"{bug.level})")
    lines = [f"# Pass bug {bug.number}: `{bug.pass_name}`", "",
             f"The pass raised `{bug.error}` while {stage} (level {bug.level}) on `{name}`. The run dropped the "
             "pass and went on without it.", "",
             f"- `input{suffix}`: the exact text the pass was given",
             "- `traceback.txt`: the traceback"]
    if bug.stage == "apply":
        lines.append("- `edits.json`: the edits of the chunk being applied to it (byte offsets)")
    lines += ["", "Reproduce (from the repository root, with PYTHONPATH pointing at it):", "", "```sh",
              f"cd {PASS_BUGS}/{bug.number} && python -c \"from reducer.passes import REGISTRY; "
              f"from reducer.source import Source; print(len({call}))\"", "```", ""]
    return "\n".join(lines)


def _cache(config: RunConfig, oracle) -> VerdictCache | None:
    use = config.cache if config.cache is not None else config.builtin
    if not use or config.keep_artifacts is not None:
        return None
    try:
        return VerdictCache(Path(config.cache_dir) if config.cache_dir else default_cache_dir(), oracle.identity(),
                            max_entries=config.cache_max_entries, max_bytes=config.cache_max_bytes)
    except (OSError, sqlite3.Error) as e:
        raise RunError(f"cannot use the verdict cache: {e}; choose another --cache-dir or pass --no-cache",
                       EXIT_INPUT) from None


def _oracle(config: RunConfig, original: bytes, state: dict, tmp_root: Path, ui: Progress):
    keep = config.keep_artifacts is not None
    file = Path(config.file)
    tree = tree_of(state)
    if not config.builtin:
        if config.flags:
            raise RunError("compile flags after -- are for the built-in oracle; a --test script gets none", EXIT_TEST)
        try:
            return ScriptOracle.create(Path(config.script), file.name, timeout=config.timeout, tmp_root=tmp_root,
                                       test_arg=config.test_arg, keep_dirs=keep, tree=tree)
        except ScriptError as e:
            raise RunError(str(e), EXIT_TEST) from None
    try:
        oracle = SpillOracle(file, config.flags, config.clang, config.predicate or DEFAULT_PREDICATE,
                             config.kernels or None, config.timeout, tmp_root, keep_artifacts=keep, tree=tree,
                             ub_guard=config.ub_guard, hip_headers=config.hip_headers, init_guard=config.init_guard,
                             loop_guard=config.loop_guard)
    except (ToolchainError, PredicateError) as e:
        raise RunError(str(e), EXIT_TEST) from None
    if state.get("oracle_settings"):
        return oracle.with_targets(original=original, **state["oracle_settings"])
    ui.say("checking the original: building it with and without full offload LTO...")
    try:
        oracle = oracle.resolve_targets(original, focus=not config.all_targets)
    except OracleSetupError as e:
        raise RunError(str(e), EXIT_NOT_INTERESTING) from None
    # recorded, so a resumed run keeps the same targets (focus included) and guards without building anything
    state["targets"], state["showing_effect"] = list(oracle.targets), list(oracle.interesting)
    state["oracle_settings"] = oracle.settings()
    ui.say(f"target kernel(s): {', '.join(oracle.targets)}")
    if len(oracle.interesting) > len(oracle.targets):
        ui.say(f"focus: {len(oracle.interesting)} kernels show the effect; the reduction keeps this one and may delete "
               f"the others ({', '.join(k for k in oracle.interesting if k not in oracle.targets)}); --all-targets "
               "keeps them all")
    if oracle.compiler.hip.is_lean:
        ui.say("HIP headers: the shim without the host's <cmath> and <cstdlib> (the original builds the same code "
               "without them)")
    if oracle.compiler.pch:
        ui.say("HIP headers: <hip/hip_runtime.h> read from a precompiled header where it leads a candidate (the "
               "original builds the same code with it)")
    for why in oracle.guards_off:
        ui.say(f"note: {why}")
    state["guards"] = {"ub": config.ub_guard, "init": oracle.guards["init"], "loop": bool(oracle.loop_targets),
                       "off": oracle.guards_off}
    return oracle


def _values(config: RunConfig, oracle, cache: VerdictCache | None, wd: WorkDir) -> ClangValues | None:
    """The compiler's answers to the folding passes' questions: the built-in oracle's own device
    front end, flags and HIP headers included; its answers kept in the verdict cache, whose key
    covers the oracle's identity, and every answer of this run in its work directory, for the
    replay of a resumed run. A script gives no compiler to ask: the tree evaluator folds."""
    if not config.builtin:
        return None
    try:
        journal = wd.values_journal()
    except (OSError, WorkDirError) as e:
        raise RunError(f"cannot use the answers journal of {wd.path}: {e}", EXIT_INPUT) from None
    return ClangValues(oracle.compiler.diagnostics, cache, journal=journal)


def _metrics(config: RunConfig, oracle: SpillOracle, original: bytes, result: bytes, state: dict) -> dict[str, Any]:
    """`reduce check` reports of the original and the result, kept in the state for the report."""
    state["metrics"] = {role: _check(config, state, content, list(oracle.targets))
                        for role, content in (("original", original), ("result", result))}
    return state["metrics"]


def _check(config: RunConfig, state: dict, content: bytes, kernels: list[str]) -> dict[str, Any]:
    return run_check(config.file, config.flags, content=content, clang=config.clang, kernel=kernels,
                     predicate=config.predicate, timeout=config.timeout, tree=tree_of(state),
                     hip_headers=config.hip_headers)


def result_files(wd: WorkDir, state: dict) -> list[tuple[str, bytes]]:
    """The final result as (relative path, text), main file first: what a bug report holds."""
    content = wd.read("final") or wd.read("best") or wd.read("start") or wd.read("original") or b""
    if tree_of(state):  # at their paths under the directory the oracle compiles a file set's copy in
        return [(f"{TREE_DIR}/{name}", text) for name, text in bundle.decode(content)]
    return [(Path(wd.config["file"]).name, content)]


def bug_report(workdir: Path) -> Path:
    """Measure the run's result (final, else best so far) and (re)write WORKDIR/bundle/."""
    try:
        wd = WorkDir.open(workdir)
    except WorkDirError as e:
        raise RunError(str(e), EXIT_INPUT) from None
    config, state = RunConfig.from_dict(wd.config), wd.state()
    if not config.builtin:
        raise RunError("a bug-report bundle is made for runs of the built-in spill oracle; this run used "
                       f"the test script {config.script}", EXIT_INPUT)
    os.chdir(config.cwd)
    files = result_files(wd, state)
    content = bundle.encode([(n[len(TREE_DIR) + 1:], t) for n, t in files]) if tree_of(state) else files[0][1]
    return bugreport.write(wd, _check(config, state, content, state.get("targets") or config.kernels), files)
