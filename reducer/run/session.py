"""One reduction run from its configuration to its report: start it, or resume it from its work
directory. The CLI and batches only build a RunConfig and call `start` or `resume`."""
from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
import sqlite3
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from interestingness.base.verdict import Verdict
from interestingness.compiler.sides import SideError
from interestingness.compiler.toolchain import ToolchainError
from interestingness.measure.predicates import PredicateError
from interestingness.oracle.script import ScriptError
from interestingness.oracle.spill import OracleSetupError, SpillOracle
from interestingness.tools import oracles

from ..engine import stopping
from ..engine.budget import Budget, BudgetExhausted
from ..engine.cache import VerdictCache, default_cache_dir
from ..engine.engine import Engine, Hooks, PassBug, Replay, Status
from ..engine.evaluate import Evaluator
from ..engine.journal import Tally
from ..engine.schedule import Schedule
from ..text import fileset, footprint
from ..text.flatten import flatten
from ..text.lexer import count_tokens
from ..text.source import Source
from ..text.subject import FileSet, OneFile, Subject, subject_of
from ..text.values import ClangValues
from . import bugreport, pass_bugs
from .exits import (
    EXIT_BUDGET,
    EXIT_INPUT,
    EXIT_INTERRUPTED,
    EXIT_IO,
    EXIT_NOT_INTERESTING,
    EXIT_ORIGINAL_TIMEOUT,
    EXIT_TEST,
    EXIT_UNSTABLE,
    RunError,
)
from .finish import clang_format, finish
from .options import RunConfig
from .progress import Progress
from .report import write_report
from .state import CheckReports, FinalCheck, PassTally, RunState
from .workdir import WorkDir, WorkDirError


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
    subject, text = (OneFile(file), text) if config.flattens else _collect(config, file, text)
    try:
        subject.check_output(output, force)
        wd = WorkDir.create(workdir, asdict(config), force=force)
    except (WorkDirError, OSError) as e:
        raise RunError(str(e), EXIT_INPUT) from None
    wd.save_state(RunState(tree=subject.tree))
    wd.write("original", text)
    try:
        return _execute(config, wd, display)
    except RunError:
        if not wd.state().started:
            shutil.rmtree(wd.path, ignore_errors=True)
        raise


def _collect(config: RunConfig, file: Path, text: bytes) -> tuple[Subject, bytes]:
    """The file set of `file` and its project headers with its bundle, or the file alone when
    it includes none."""
    try:
        found = fileset.collect(file, text, config.header_dirs(Path(config.cwd)))
    except OSError as e:
        raise RunError(f"cannot read a header of {file}: {e}", EXIT_INPUT) from None
    if found is None:
        return OneFile(file), text
    tree, data = found
    return FileSet(tree, data), data


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
    if state.outcome == "done":  # a kill may have come while its report was written
        shutil.rmtree(wd.path / "tmp", ignore_errors=True)
        if state.metrics:
            bugreport.write(wd, state.metrics.result, _subject(wd, state).result_files(wd.result()))
        report = write_report(wd)
        Progress(None, quiet=display.quiet).say(f"{workdir}: this run has finished; the result is "
                                                f"{wd.config['output']}, the report {report}")
        return 0
    return _execute(RunConfig.from_dict(wd.config), wd, display)


def _execute(config: RunConfig, wd: WorkDir, display: Display) -> int:
    os.chdir(config.cwd)
    original = wd.read("original")
    if original is None:  # killed between creating the work directory and copying the input there
        raise RunError(f"{wd.path} holds no copy of the original file: start a new run", EXIT_INPUT)
    state = wd.state()
    subject = subject_of(Path(config.file), state.tree, original)
    keep = config.keep_artifacts is not None
    tmp_parent = Path(config.keep_artifacts) if config.keep_artifacts is not None else wd.path / "tmp"
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
        built = _oracle(config, original, subject, state, tmp_root, ui)
        oracle = built.oracle
        identity = hashlib.sha256(json.dumps(oracle.identity(), sort_keys=True, default=str).encode()).hexdigest()
        if state.oracle_identity is None:
            state.oracle_identity = identity
        if state.oracle_identity != identity:
            raise RunError("the oracle changed since this run started (toolchain, script, headers, flags or "
                           "environment); its verdicts no longer apply: start a new run", EXIT_TEST)
        cache = _cache(config, oracle)
        values = _values(built, cache, wd)
        # a claim is stale once its owner could have finished both compiles of a test
        with Evaluator(oracle, config.jobs, config.backend, cache, config.scheduler, journal, budget,
                       stale_after=2 * config.timeout + 60, allow_empty=config.allow_empty,
                       recheck=config.recheck if config.recheck is not None else not config.builtin) as evaluator:
            ui.counters = evaluator.counters
            with ui:
                return _Session(config, wd, state, subject, evaluator, ui, original, values).run()
    finally:
        journal.close()
        if not keep:
            shutil.rmtree(tmp_parent, ignore_errors=True)


class _Session:
    """One session of a run: pick the start text, run the engine, record everything."""

    def __init__(self, config: RunConfig, wd: WorkDir, state: RunState, subject: Subject, evaluator: Evaluator,
                 ui: Progress, original: bytes, values: ClangValues | None = None):
        self.config, self.wd, self.state, self.subject = config, wd, state, subject
        self.evaluator, self.ui, self.values = evaluator, ui, values
        self.original = original
        self.main = subject.main_text(original)
        # the parts' languages are read from the original: a flattened start file is parsed as its input is
        self.languages = subject.languages(original)
        self.language = self.languages[0]
        # Replay re-derives accepts, bytes and the candidates rejected without a test. Tests and
        # oracle seconds come from the journal, which names the pass of each; wall seconds from
        # the earlier sessions' state.
        journal = evaluator.journal
        self.tally = PassTally(state.per_pass, journal.earlier if journal is not None else Tally())
        self.pass_bugs = {b.number: b for b in state.pass_bugs}
        self._engine: Engine | None = None  # made by `run`
        self._values_per_sweep: list[dict] = []  # front-end runs and seconds; index 0: the first passes
        self._values_done, self._values_sweep = (0, 0.0), 0

    @property
    def engine(self) -> Engine:
        """The run's engine; the hooks and `_save` are reached only once `run` has made it."""
        assert self._engine is not None, "the engine is made by run()"
        return self._engine

    def run(self) -> int:
        config, wd, state, subject, ui = self.config, self.wd, self.state, self.subject, self.ui
        output = Path(config.output)
        ui.say(f"{'resuming' if state.started else 'reducing'} {config.file}: {len(self.main)} bytes, "
               f"{count_tokens(self.main)} tokens, language {self.language}, "
               f"{Source(self.main, self.language).error_count} parse error node(s); work directory {wd.path}")
        for line in subject.introduce(self.original, output):
            ui.say(line)
        text = wd.read("start")
        if text is None:
            text = self._start_text()
            wd.write("start", text)
        state.started = True
        if not state.history:
            state.history = [[self.evaluator.budget.elapsed(), subject.size(text)]]
        self.history = state.history
        schedule = Schedule.from_registry(config.passes, rename=config.rename, skip=config.skip_passes,
                                          adaptive=config.adaptive_sweeps, replacements=config.replaces)
        cap = config.pass_time_cap if config.pass_time_cap is not None else (
            config.time_budget / 4 if config.time_budget else None)
        replay = Replay(caps=state.caps, bugs={b.run: b.searches for b in self.pass_bugs.values()}, pass_time_cap=cap)
        self._engine = Engine(self.evaluator, self.language, schedule, replay=replay, values=self.values,
                             hooks=Hooks(on_accept=self._accepted, on_event=self._event, on_pass_bug=self._pass_bug),
                             prefilter=config.prefilter, confirm_batch=config.confirm_batch)
        try:
            subject.write_result(output, wd.read("best") or text)
            self.engine.reduce_parts(subject.parts(text), self.languages, subject.join)
            stopping.check()  # a stop whose interrupt was lost on the way
            outcome, code = "done", 0
        except KeyboardInterrupt:
            outcome, code = "interrupted", EXIT_INTERRUPTED
        except BudgetExhausted as e:
            outcome, code = f"budget: {e}", EXIT_BUDGET
            self.engine.settle()
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
                    oracle = self.evaluator.oracle
                    assert isinstance(oracle, SpillOracle)  # the built-in oracle
                    targets = list(oracle.targets)
                    state.metrics = CheckReports(*oracles.check_pair(config, subject.tree, self.original, result,
                                                                     targets))
                    self._save(outcome)
                    files = subject.result_files(wd.result())
                    bundle = bugreport.write(wd, state.metrics.result, files)
                    bound = explain_bound(config.explain_budget, self.evaluator.budget.remaining_seconds())
                    if config.explain and code == 0 and bound <= 0:
                        ui.say("note: no EXPLAIN.md: no time left for it (--time-budget, --explain-budget); "
                               "`reduce explain` on the bundle's file gives it")
                    elif config.explain and code == 0:
                        oracles.explain(config, subject.tree, result, targets, config.jobs, bundle,
                                        bugreport.by_hand(state.metrics.result, files), wd.path / "tmp", ui.say,
                                        bound)
                    ui.say(f"bug report: {bundle}/")
                self._save(outcome)
            report = write_report(wd)
        except OSError as e:
            raise RunError(f"{outcome}, but the report cannot be written ({e.strerror or e}); the result is "
                           f"intact in {output}", EXIT_IO) from None
        ui.summary(Path(config.file), output, self.original, text, reduced, outcome, report,
                   files=subject.file_sizes(self.original, result), tree=subject.output_tree(output),
                   finished=state.finish, per_pass=self.tally.over_sessions(self.engine.status))
        return code

    def _finish(self, reduced: bytes, start: bytes) -> tuple[bytes, str, int]:
        """Hygiene and formatting of the reduced result (reducer/run/finish.py); the final text is the
        output (and WORKDIR/final), the reduced one stays the best. A stop in the middle keeps the
        reduced result and leaves the run resumable."""
        subject = self.subject
        tool = clang_format(getattr(getattr(self.evaluator.oracle, "toolchain", None), "clang", None)) \
            if self.config.format else None
        if self.config.format:
            self.ui.say("finishing: hygiene rewrites and clang-format, each kept when still interesting...")
        try:
            done = finish(subject.parts(reduced), subject.languages(reduced), subject.parts(start),
                          lambda candidate: self.evaluator.test(subject.join(candidate)).interesting,
                          format_with=tool, style_file=Path(self.config.file),
                          initialise=self.config.initialises) if self.config.format else None
        except KeyboardInterrupt:
            return reduced, "interrupted", EXIT_INTERRUPTED
        except BudgetExhausted as e:
            return reduced, f"budget: {e}", EXIT_BUDGET
        if done is None:
            final = reduced
        else:
            final = subject.join(done.parts)
            self.state.finish = done.summary()
            if self.config.format and tool is None:
                self.state.finish["notes"].append("no clang-format found (Debian: clang-format-22); not formatted")
            for note in self.state.finish["notes"]:
                self.ui.say(f"note: {note}")
        subject.write_result(Path(self.config.output), final)
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
        if self.evaluator.test_repeatedly(self.subject.empty(), 1, within_budget=False)[0].interesting:
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
        check = self.state.final_check = FinalCheck(n, sum(v.interesting for v in verdicts),
                                                    [v.reason for v in verdicts if not v.interesting])
        if not stable:
            self.ui.say(f"WARNING: the result was interesting in only {check.interesting} of {n} fresh tests: "
                        "the test is flaky")

    def _save(self, outcome: str = "running") -> None:
        state = self.state
        state.caps = dict(self.engine.caps)
        if self.values is not None:  # this session's questions to the compiler, in all and per sweep
            self._count_values(self.values, self.engine.status.sweep)
            state.values = {**asdict(self.values.stats), "per_sweep": self._values_per_sweep}
        state.pass_bugs = [self.pass_bugs[n] for n in sorted(self.pass_bugs)]
        state.record_standing(self.engine.status, self.evaluator.counters, self.evaluator.budget,
                     self.tally.over_sessions(self.engine.status))
        state.outcome = outcome
        self.wd.save_state(state)

    def _count_values(self, values: ClangValues, sweep: int) -> None:
        """Charge the front-end runs since the last pass began to the sweep it began in."""
        stats = values.stats
        while len(self._values_per_sweep) <= max(sweep, self._values_sweep):
            self._values_per_sweep.append({"runs": 0, "seconds": 0.0})
        row = self._values_per_sweep[self._values_sweep]
        row["runs"] += stats.runs - self._values_done[0]
        row["seconds"] = round(row["seconds"] + stats.seconds - self._values_done[1], 3)
        self._values_done, self._values_sweep = (stats.runs, stats.seconds), sweep

    def _accepted(self, content: bytes) -> None:
        self.subject.write_result(Path(self.config.output), content)
        self.wd.write("best", content)
        size = self.subject.size(content)
        if size < self.history[-1][1]:  # a replayed accept is in the history already
            self.history.append([round(self.evaluator.budget.elapsed(), 3), size])
        self._save()

    def _pass_bug(self, bug: PassBug) -> None:
        """Keep what reproduces the bug in pass-bugs/N/, say so once, and go on without the pass."""
        if bug.replayed:  # an earlier session wrote it and said so
            self.wd.log(f"pass {bug.pass_name} dropped again where it raised in an earlier session "
                        f"({self.wd.pass_bug_dir(bug.number)})")
            return
        name = self.subject.names[bug.part]
        record = self.pass_bugs[bug.number] = pass_bugs.keep(self.wd, bug, name)
        self.ui.say(f"BUG in pass {bug.pass_name} ({bug.error}) while {pass_bugs.stage_words(bug)} on {name}: the "
                    f"pass is dropped for the rest of the run; its input and traceback are in {record.dir}/")
        self.ui.event("pass-bug", self.engine.status)
        self._save()

    def _event(self, kind: str, status: Status) -> None:
        self.ui.event(kind, status)
        if self.values is not None and kind == "pass":
            self._count_values(self.values, status.sweep)
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


EXPLAIN_BUDGET = 30 * 60.0  # without --time-budget: a real library TU's full explanation takes an hour


def explain_bound(asked: float | None, left: float | None) -> float:
    """Seconds the explanation may start builds for: --explain-budget, else what is left of
    --time-budget, else EXPLAIN_BUDGET; never more than what is left (a time budget is a promise)."""
    bound = asked if asked is not None else left if left is not None else EXPLAIN_BUDGET
    return bound if left is None else min(bound, left)


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


def _oracle(config: RunConfig, original: bytes, subject: Subject, state: RunState, tmp_root: Path,
            ui: Progress) -> oracles.RunOracle:
    """The run's oracle: restored from what the state recorded, or resolved on the original, and
    then recorded, so a resumed run keeps the same targets (focus included) and guards without
    building anything."""
    try:
        built = oracles.build(config, original, subject.tree, state.oracle_settings, tmp_root, ui.say)
    except (ScriptError, ToolchainError, PredicateError, SideError) as e:
        raise RunError(str(e), EXIT_TEST) from None
    except OracleSetupError as e:
        raise RunError(str(e), EXIT_NOT_INTERESTING) from None
    if built.resolution is not None:
        state.record_resolution(built.resolution)
    return built


def _values(built: oracles.RunOracle, cache: VerdictCache | None, wd: WorkDir) -> ClangValues | None:
    """The compiler's answers to the folding passes' questions: the built-in oracle's own device
    front end, flags and HIP headers included; its answers kept in the verdict cache, whose key
    covers the oracle's identity, and every answer of this run in its work directory, for the
    replay of a resumed run. A script gives no compiler to ask: the tree evaluator folds. The
    same front end with the footprint plugin loaded, reaching from the oracle's target kernels,
    answers the footprint passes (text/footprint.py)."""
    if built.front_end is None:
        return None
    try:
        journal = wd.values_journal()
    except (OSError, WorkDirError) as e:
        raise RunError(f"cannot use the answers journal of {wd.path}: {e}", EXIT_INPUT) from None
    plugin_run = None
    if isinstance(built.oracle, SpillOracle):
        try:
            flags = footprint.plugin_flags(built.oracle.targets)
        except footprint.PluginMissing as e:
            raise RunError(str(e), EXIT_TEST) from None
        plugin_run = functools.partial(built.oracle.compiler.plugin_output, flags=flags)
    return ClangValues(built.front_end, cache, journal=journal, plugin_run=plugin_run)


def _subject(wd: WorkDir, state: RunState) -> Subject:
    return subject_of(Path(wd.config["file"]), state.tree, wd.read("original") or b"")


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
    subject, content = _subject(wd, state), wd.result()
    report = oracles.check(config, subject.tree, content, state.targets or config.kernels,
                           against=wd.read("original"))
    return bugreport.write(wd, report, subject.result_files(content))
