"""state.json as runs of earlier versions wrote it loads into the typed state and is written back
the same, key for key and in the same order."""
import json

from interestingness.base.bundle import Tree
from reducer.run.state import PassBugRecord, RunState
from reducer.run.workdir import WorkDir

# a finished file-set run of the built-in oracle that met a pass bug, as the untyped version saved it
FINISHED = {
    "tree": {"root": "/src/case", "main": "k.hip"},
    "targets": ["_Z5spillPfPKfi"], "showing_effect": ["_Z5spillPfPKfi", "_Z6spill2PfPKfi"],
    "oracle_settings": {"targets": ["_Z5spillPfPKfi"], "loop_targets": [], "init_guard": "code", "lean_shim": True,
                        "pch": False},
    "guards": {"ub": True, "init": "code", "loop": False, "off": ["the loop guard is off: the original spills "
                                                                  "outside loops only"]},
    "oracle_identity": "ab" * 32, "started": True, "history": [[0.5, 900], [12.25, 400]],
    "caps": {"3": 17}, "values": {"runs": 4, "seconds": 1.5, "per_sweep": [{"runs": 4, "seconds": 1.5}]},
    "pass_bugs": [{"number": 1, "pass": "inline", "run": 5, "searches": 2, "file": "inc/a.h", "level": 0,
                   "stage": "apply", "error": "ValueError: x", "dir": "/w/pass-bugs/1"}],
    "finish": {"reduced_bytes": 400, "after_hygiene_bytes": 398, "formatted_bytes": None, "hygiene": {}, "notes": []},
    "final_check": {"tests": 2, "interesting": 2, "reasons": []},
    "metrics": {"original": {"kernels": []}, "result": {"kernels": []}},
    "counters": {"tests": 40, "memo_hits": 3, "elapsed": 12.5, "tests_total": 40}, "size": 400, "accepted": 7,
    "prefiltered": 1, "position": {"sweep": 2, "pass": "join-lines", "full_sweep": True},
    "per_pass": {"lines": {"accepted": 7, "bytes_removed": 500, "tests": 40, "seconds": 11.0}},
    "stalls": [], "dropped_passes": ["inline"], "outcome": "done",
}


def test_a_finished_runs_state_loads_typed_and_is_written_back_the_same(tmp_path):
    state = RunState.from_json(FINISHED)
    assert state.tree == Tree("/src/case", "k.hip") and state.caps == {3: 17} and state.tests == 40
    assert state.pass_bugs == [PassBugRecord(1, "inline", 5, 2, "inc/a.h", 0, "apply", "ValueError: x",
                                             "/w/pass-bugs/1")]
    assert state.guards.init == "code" and state.metrics.result == {"kernels": []} and state.position.sweep == 2
    assert json.dumps(state.to_json(), indent=1) == json.dumps(FINISHED, indent=1)
    (tmp_path / "run.json").write_text("{}")
    wd = WorkDir.open(tmp_path)
    wd.save_state(state)
    assert json.loads((tmp_path / "state.json").read_text()) == FINISHED
    assert wd.state() == state


def test_a_resumed_run_keeps_its_files_key_order_and_a_script_run_has_no_oracle_records():
    # a run stopped by its budget (no finish yet), resumed: the finishing comes after the keys it had
    stopped = {k: v for k, v in FINISHED.items() if k != "finish"}
    state = RunState.from_json(stopped)
    state.finish = FINISHED["finish"]
    assert list(state.to_json()) == [*stopped, "finish"]
    script = {k: v for k, v in FINISHED.items() if k not in ("tree", "targets", "showing_effect", "oracle_settings",
                                                             "guards", "values", "metrics")}
    assert list(RunState.from_json(script).to_json()) == list(script)
    # before its original passed its checks, a run's state names only its file set's tree
    assert RunState(tree=Tree("/src/case", "k.hip")).to_json() == {"tree": FINISHED["tree"]}
    assert RunState().to_json() == {}
