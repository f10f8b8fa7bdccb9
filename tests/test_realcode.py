"""benchmarks/realcode: the real-code benchmark's manifests and the script that rebuilds its input
from public library code (issue 28). No fetched code is in the repository: the manifests record
a repository, a commit and a file list; building needs a git copy of that repository, so those
tests run only where the snapshot is (/work/.mirror, the fetch tool's place)."""
from __future__ import annotations

import importlib.util
import json
import subprocess

import pytest
from conftest import ROOT

HERE = ROOT / "benchmarks" / "realcode"
spec = importlib.util.spec_from_file_location("build_input", HERE / "build_input.py")
build_input = importlib.util.module_from_spec(spec)
spec.loader.exec_module(build_input)
MANIFESTS = sorted(HERE.glob("*.json"))


def test_there_is_a_manifest():
    assert MANIFESTS


@pytest.mark.parametrize("path", MANIFESTS, ids=lambda p: p.name)
def test_manifest_records_where_everything_comes_from(path):
    m = json.loads(path.read_text())
    for key in ("name", "repository", "url", "commit", "files", "repro", "flags"):
        assert m[key], key
    assert len(m["commit"]) == 40 and all(c in "0123456789abcdef" for c in m["commit"])
    assert all(len(f["blob"]) == 40 for f in m["files"])
    assert len({f["path"] for f in m["files"]}) == len(m["files"])
    # the reproducer is ours and small: the library's code comes from the commit
    assert len(m["repro"]) < 4000
    assert "MIOpen" not in m["url"] and not any("miopen" in f["path"].lower() for f in m["files"])
    assert any("{input}" in f for f in m["flags"])


def test_configure_file_follows_cmake():
    template = ("#cmakedefine A @A@\n#cmakedefine B @B@\n#cmakedefine C \"@C@\"\n"
                "#define V @A@ ${A}\n#cmakedefine D\n")
    out = build_input.configure_file(template, {"A": "ON", "B": "OFF", "C": "x y", "D": "1"})
    assert out == '#define A ON\n/* #undef B */\n#define C "x y"\n#define V ON ON\n#define D\n'


@pytest.mark.parametrize("path", MANIFESTS, ids=lambda p: p.name)
def test_build_from_the_snapshot(path, tmp_path):
    m = json.loads(path.read_text())
    git_dir = build_input.default_git_dir(m["repository"])
    if not build_input.Source(git_dir, m["commit"]).has_commit():
        pytest.skip(f"no snapshot of {m['repository']} at {m['commit'][:12]} here")
    out = tmp_path / "case"
    subprocess.run(["python3", str(HERE / "build_input.py"), str(path), "-o", str(out)], check=True,
                   capture_output=True)
    assert (out / "repro.hip").read_text() == m["repro"]
    assert str(out) in (out / "flags").read_text()
    for f in m["files"]:
        assert (out / f["path"]).is_file(), f["path"]
    for g in m.get("generated", []):
        assert (out / g["path"]).is_file(), g["path"]


def test_an_input_is_named_by_its_manifest(tmp_path):
    for path in MANIFESTS:
        name = json.loads(path.read_text())["name"]
        assert build_input.manifest_path(name) == path  # the file is named after the input
    other = tmp_path / "m.json"
    other.write_text("{}")
    assert build_input.manifest_path(str(other)) == other
