"""A run's state (state.json in its work directory): where it stands, for its reports and for
people. One typed record, mapped to JSON here only, under the keys the file has always had, so
the work directories of earlier runs load and the file reads the same. Resume needs little of it
(the file set's tree, the oracle's settings and identity, pass-time caps and pass bugs;
notes/runs.md says why); the rest is what the report shows.

Keys are written in the order a new run first sets them (a resumed run keeps its file's order
and adds new keys after it), and a record not set yet is left out (a test script's run has no
targets, guards or metrics). Until the run has started (its original passed its checks), the
file names only a file set's tree, which `start` records for `resume`."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from interestingness.base.bundle import Tree
from interestingness.tools.oracles import Guards, Resolution

if TYPE_CHECKING:  # the work directory's modules load without the engine
    from ..engine.budget import Budget
    from ..engine.engine import Status
    from ..engine.journal import Tally
    from ..engine.verdicts import Counters


@dataclass(frozen=True)
class PassBugRecord:
    """A pass that raised, where in the run (so a resumed run drops it at the same point), and
    where what reproduces it was written (pass-bugs/N/)."""

    number: int
    pass_name: str
    run: int       # the pass run it raised in, and after how many searches
    searches: int
    file: str      # the part it was given
    level: int
    stage: str     # "items" (enumerating) or "apply"
    error: str
    dir: str

    def to_json(self) -> dict[str, Any]:
        return {"number": self.number, "pass": self.pass_name, "run": self.run, "searches": self.searches,
                "file": self.file, "level": self.level, "stage": self.stage, "error": self.error, "dir": self.dir}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PassBugRecord:
        return cls(data["number"], data["pass"], data["run"], data["searches"], data["file"], data["level"],
                   data["stage"], data["error"], data["dir"])


@dataclass(frozen=True)
class Position:
    """Where in the schedule the engine was at the last save."""

    sweep: int
    pass_name: str
    full_sweep: bool

    def to_json(self) -> dict[str, Any]:
        return {"sweep": self.sweep, "pass": self.pass_name, "full_sweep": self.full_sweep}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Position:
        return cls(data["sweep"], data["pass"], data.get("full_sweep", True))


@dataclass(frozen=True)
class FinalCheck:
    """The fresh tests of the result at the end: how many, how many said interesting, and why not."""

    tests: int
    interesting: int
    reasons: list[str]


@dataclass(frozen=True)
class CheckReports:
    """`reduce check --json` of the original and of the result (built-in oracle): the report's
    kernel table and the bug report's figures."""

    original: dict[str, Any]
    result: dict[str, Any]


@dataclass
class RunState:
    """Everything state.json holds; `WorkDir.state` reads it, `WorkDir.save_state` writes it."""

    tree: Tree | None = None                  # a file set's, None for one file
    # what resolving the spill oracle decided (interestingness.tools.oracles.Resolution)
    targets: list[str] | None = None
    showing_effect: list[str] | None = None
    oracle_settings: dict[str, Any] | None = None
    guards: Guards | None = None
    oracle_identity: str | None = None        # sha256 of the oracle's identity: a resume must match it
    started: bool = False                     # the original passed its checks and the engine began
    history: list[list[float]] = field(default_factory=list)  # [seconds, bytes] at each new best
    caps: dict[int, int] = field(default_factory=dict)        # pass run -> searches where its time cap fell
    values: dict[str, Any] | None = None      # this session's questions to the compiler (reducer/text/values.py)
    pass_bugs: list[PassBugRecord] = field(default_factory=list)
    finish: dict[str, Any] | None = None      # hygiene and formatting of the result (reducer/run/finish.py)
    final_check: FinalCheck | None = None
    metrics: CheckReports | None = None
    # the engine's standing at the last save (`record_standing`)
    counters: dict[str, Any] = field(default_factory=dict)   # the evaluator's, with elapsed and tests_total
    size: int | None = None
    accepted: int | None = None
    prefiltered: int | None = None
    position: Position | None = None
    per_pass: dict[str, dict[str, Any]] = field(default_factory=dict)  # each pass's yield over all sessions
    stalls: list[dict[str, Any]] = field(default_factory=list)
    dropped_passes: list[str] = field(default_factory=list)
    outcome: str | None = None                # "running", "done", "interrupted", "budget: ..."
    loaded_keys: tuple[str, ...] = field(default=(), repr=False, compare=False)  # the order of the file read

    @property
    def tests(self) -> int:
        """Tests of all sessions."""
        return self.counters.get("tests_total", 0)

    @property
    def wall_seconds(self) -> float:
        """Active seconds of all sessions."""
        return self.counters.get("elapsed", 0.0)

    def record_resolution(self, r: Resolution) -> None:
        self.targets, self.showing_effect, self.oracle_settings, self.guards = (
            r.targets, r.showing_effect, r.settings, r.guards)

    def record_standing(self, status: Status, counters: Counters, budget: Budget,
                        per_pass: dict[str, dict[str, Any]]) -> None:
        """The engine's standing (`status`), the evaluator's `counters` with the run's `budget`,
        and each pass's yield over all sessions (`PassTally.over_sessions`)."""
        self.counters = {**asdict(counters), "elapsed": round(budget.elapsed(), 3),
                         "tests_total": budget.spent_tests + counters.tests}
        self.size, self.accepted, self.prefiltered = status.size, status.accepted, status.prefiltered
        self.position = Position(status.sweep, status.current_pass, status.full_sweep)
        self.per_pass, self.stalls, self.dropped_passes = per_pass, status.stalls, status.dropped

    def to_json(self) -> dict[str, Any]:
        shown = {
            "tree": asdict(self.tree) if self.tree else None,
            "targets": self.targets, "showing_effect": self.showing_effect, "oracle_settings": self.oracle_settings,
            "guards": self.guards.to_json() if self.guards else None,
            "oracle_identity": self.oracle_identity, "started": self.started, "history": self.history,
            "caps": {str(k): v for k, v in self.caps.items()}, "values": self.values,
            "pass_bugs": [b.to_json() for b in self.pass_bugs], "finish": self.finish,
            "final_check": asdict(self.final_check) if self.final_check else None,
            "metrics": asdict(self.metrics) if self.metrics else None,
            "counters": self.counters, "size": self.size, "accepted": self.accepted, "prefiltered": self.prefiltered,
            "position": self.position.to_json() if self.position else None, "per_pass": self.per_pass,
            "stalls": self.stalls, "dropped_passes": self.dropped_passes, "outcome": self.outcome,
        }
        if not self.started:
            shown = {"tree": shown["tree"]}
        order = dict.fromkeys([*self.loaded_keys, *shown])
        return {key: shown[key] for key in order if shown.get(key) is not None}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> RunState:
        def record(key: str, make):
            return make(data[key]) if data.get(key) else None

        return cls(
            tree=record("tree", lambda t: Tree(**t)),
            targets=data.get("targets"), showing_effect=data.get("showing_effect"),
            oracle_settings=data.get("oracle_settings"), guards=record("guards", Guards.from_json),
            oracle_identity=data.get("oracle_identity"), started=data.get("started", False),
            history=data.get("history", []), caps={int(k): v for k, v in data.get("caps", {}).items()},
            values=data.get("values"), pass_bugs=[PassBugRecord.from_json(b) for b in data.get("pass_bugs", [])],
            finish=data.get("finish"), final_check=record("final_check", lambda f: FinalCheck(**f)),
            metrics=record("metrics", lambda m: CheckReports(**m)),
            counters=data.get("counters", {}), size=data.get("size"), accepted=data.get("accepted"),
            prefiltered=data.get("prefiltered"), position=record("position", Position.from_json),
            per_pass=data.get("per_pass", {}), stalls=data.get("stalls", []),
            dropped_passes=data.get("dropped_passes", []), outcome=data.get("outcome"), loaded_keys=tuple(data),
        )


class PassTally:
    """Each pass's yield over all sessions. This session's replay re-derives its accepts, bytes
    and rejections; its tests and oracle seconds add to those the journal counts for it (a state
    saved before a kill may lag behind the journal, and a journal of an older version names no
    pass), its wall seconds to the earlier sessions' (from the state)."""

    def __init__(self, earlier: dict[str, dict[str, Any]], journalled: Tally):
        self.earlier = earlier
        self.journalled: dict[str, Mapping[str, float]] = {
            "tests": journalled.tests, "compile_errors": journalled.compile_errors,
            "build_known": journalled.build_known, "oracle_seconds": journalled.oracle_seconds}

    def over_sessions(self, status: Status) -> dict[str, dict[str, Any]]:
        per_pass = {}
        for name, y in status.per_pass.items():
            before = self.earlier.get(name, {})
            now = asdict(y)
            per_pass[name] = {**now, **{key: now[key] + max(counts.get(name, 0), before.get(key, 0))
                                        for key, counts in self.journalled.items()},
                              "seconds": round(y.seconds + before.get("seconds", 0.0), 3)}
            per_pass[name]["oracle_seconds"] = round(per_pass[name]["oracle_seconds"], 3)
        return per_pass
