"""The one table of run options (reducer/run/options.py): every option that decides a run can be set
from a batch manifest and arrives in the run's configuration, as `reduce run` gives it; and a
run.json written before the table loads to the same configuration."""
import json
from dataclasses import asdict

import pytest
from click.testing import CliRunner

from reducer.cli import main as cli
from reducer.engine import stopping
from reducer.run import batch, session
from reducer.run.options import FIELDS, RunConfig

# field: (its value in a manifest, the RunConfig value that gives, other keys the case needs);
# never the default, so a row the manifest dropped cannot pass. {base} is the manifest's directory.
SAMPLES = {
    "script": ("t.sh", "{base}/t.sh", {}),
    "test_arg": (True, True, {}),
    "jobs": (3, 3, {}),
    "time_budget": ("90m", 5400.0, {}),
    "max_tests": (7, 7, {}),
    "pass_time_cap": ("1h", 3600.0, {}),
    "timeout": (5, 5.0, {}),
    "check_repeat": (3, 3, {}),
    "recheck": (False, False, {}),
    "allow_empty": (True, True, {}),
    "ub_guard": (False, False, {}),
    "init_guard": (False, False, {}),
    "loop_guard": (False, False, {}),
    "confirm_batch": (4, 4, {}),
    "format": (False, False, {}),
    "initialise": (True, True, {}),
    "prefilter": (False, False, {}),
    "explain": (False, False, {}),
    "explain_budget": ("10m", 600.0, {}),
    "passes": (["lines", "tokens"], ["lines", "tokens"], {}),
    "skip_passes": ("lines, hoist", ["lines", "hoist"], {}),
    "replacements": (False, False, {}),
    "adaptive_sweeps": (True, True, {}),
    "rename": (True, True, {}),
    "backend": ("threading", "threading", {}),
    "scheduler": ("tcp://h:8786", "tcp://h:8786", {"backend": "dask"}),
    "flatten": (False, False, {}),
    "include_dirs": (["inc", "sub/inc"], ["{base}/inc", "{base}/sub/inc"], {"test": "t.sh"}),
    "cache": (True, True, {}),
    "cache_dir": ("cache", "{base}/cache", {}),
    "cache_max_entries": (10, 10, {}),
    "cache_max_bytes": (1000, 1000, {}),
    "keep_artifacts": ("artifacts", "{base}/artifacts", {}),
    "hip_headers": ("shim", "shim", {}),
    "clang": ("/opt/clang++", "/opt/clang++", {}),
    "kernels": (["k1", "k2"], ["k1", "k2"], {}),
    "all_targets": (True, True, {}),
    "predicate": ("lto.spill_ops > 0", "lto.spill_ops > 0", {}),
    "sides": (["a=lto", "b=lto -mllvm -x"], ["a=lto", "b=lto -mllvm -x"], {}),
}


def toml(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ", ".join(map(toml, value)) + "]"
    return json.dumps(value)


def test_every_option_of_a_run_has_a_sample():
    assert set(SAMPLES) == {o.name for o in FIELDS}


@pytest.mark.parametrize("option", FIELDS, ids=lambda o: o.name)
def test_every_option_can_be_set_from_a_manifest(option, tmp_path, monkeypatch):
    value, expected, others = SAMPLES[option.name]
    keys = {**others, option.manifest_key: value}
    manifest = tmp_path / "m.toml"
    lines = ['[[case]]', 'name = "c"', 'file = "case.c"', *(f"{k} = {toml(v)}" for k, v in keys.items())]
    manifest.write_text("\n".join(lines) + "\n")
    (case,), _ = batch.load(manifest)

    started = []
    monkeypatch.setattr(stopping, "install", lambda: None)
    monkeypatch.setattr(session, "start", lambda config, workdir, **_: started.append(config) or 0)
    monkeypatch.chdir(case.cwd)
    r = CliRunner().invoke(cli.main, ["run", str(case.file), "-o", str(tmp_path / "out.c"), *case.args])
    assert r.exit_code == 0, r.output
    (config,) = started

    expected = json.loads(json.dumps(expected).replace("{base}", str(tmp_path)))
    default = getattr(RunConfig(file="f", output="o", cwd="."), option.name)
    assert expected != default
    assert getattr(config, option.name) == expected


# RunConfig's defaults before the table; a run.json of then lacks the fields added since
OLD_DEFAULTS = {"flags": [], "script": None, "test_arg": False, "jobs": 1, "timeout": 300.0, "prefilter": True,
                "passes": None, "rename": False, "skip_passes": [], "adaptive_sweeps": False, "backend": "loky",
                "scheduler": None, "flatten": None, "cache": None, "cache_dir": None, "cache_max_entries": 200_000,
                "cache_max_bytes": 1 << 30, "keep_artifacts": None, "clang": None, "kernels": [], "predicate": None,
                "time_budget": None, "max_tests": None, "pass_time_cap": None, "check_repeat": 2, "recheck": None,
                "allow_empty": False, "ub_guard": True, "init_guard": True, "loop_guard": True, "include_dirs": [],
                "hip_headers": "auto", "format": True, "all_targets": False}


def test_a_run_json_written_before_the_table_loads_unchanged():
    written = {"file": "/w/case.c", "output": "/w/o.c", "cwd": "/w", "flags": ["-O2"], "jobs": 3, "gone": 1}
    config = asdict(RunConfig.from_dict(written))
    assert {k: config[k] for k in OLD_DEFAULTS} == OLD_DEFAULTS | {"flags": ["-O2"], "jobs": 3}
    assert "gone" not in config
