"""`reduce explain`'s backend knobs: the shipped table against llc-22's own option list, knob files,
and the table on the README's case (corpora/wgrad_tiny_pos: the original and its reduced result)
with the real clang. Each knob said to change the spill is built again by the test from the
command explain printed, read with the test's own regexes, beside the same command without it."""
from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import CLANG, ROOT, needs_clang22

from interestingness.tools.explain import explain_file
from interestingness.tools.explain.knobs import (
    KNOB_TABLE,
    Knob,
    KnobError,
    OutOfTime,
    judge,
    knob_table,
    load_knobs,
    option_name,
    render,
    try_knobs,
)
from interestingness.tools.explain.report import render_markdown
from interestingness.tools.explain.stages import LINK

K = "_Z12wgrad_kernel10ConvParams"
CASE = ROOT / "corpora" / "wgrad_tiny_pos"
LLC = CLANG.parent / "llc"


@needs_clang22
def test_every_shipped_option_exists_in_llc_22_and_the_asked_knobs_are_there():
    help_text = subprocess.run([str(LLC), "-mtriple=amdgcn", "-mcpu=gfx950", "--help-hidden"], capture_output=True,
                               text=True, check=True).stdout
    listed = set(re.findall(r"^\s+--([\w.-]+)", help_text, re.M))
    table = knob_table()
    options = [o for k in table for o in k.options]
    assert [o for o in options if option_name(o) not in listed] == []
    for wanted in ("-amdgpu-sched-strategy=max-ilp", "-amdgpu-sched-strategy=max-memory-clause",
                   "-amdgpu-sched-strategy=iterative-ilp", "-amdgpu-sched-strategy=iterative-minreg",
                   "-amdgpu-sched-strategy=iterative-maxocc", "-amdgpu-use-amdgpu-trackers",
                   "-amdgpu-disable-unclustered-high-rp-reschedule", "-vgpr-regalloc=basic"):
        assert wanted in options
    assert any(o.startswith("-amdgpu-schedule-metric-bias=") for o in options)
    assert len({k.name for k in table}) == len(table)


def test_a_knob_file_adds_knobs_and_replaces_those_of_its_names(tmp_path):
    extra = tmp_path / "mine.toml"
    extra.write_text('[[knob]]\nname = "sched-max-ilp"\noptions = ["-amdgpu-sched-strategy=max-ilp", '
                     '"-amdgpu-schedule-metric-bias=0"]\n\n[[knob]]\nname = "mine"\noptions = ["-misched-limit=8"]\n')
    shipped = load_knobs(KNOB_TABLE)
    table = knob_table([extra])
    assert [k.name for k in table] == [*(k.name for k in shipped), "mine"]
    assert table[[k.name for k in table].index("sched-max-ilp")].options == ("-amdgpu-sched-strategy=max-ilp",
                                                                               "-amdgpu-schedule-metric-bias=0")
    bad = tmp_path / "bad.toml"
    for text in ('[[knob]]\nname = "x"\noptions = "-a"\n', "[[knob]]\noptions = ['-a']\n", "knob = 3\n", "[[knob"):
        bad.write_text(text)
        with pytest.raises(KnobError):
            knob_table([bad])


def test_a_knobs_outcome_follows_the_predicate_and_the_spill():
    side = {"vgpr_spills": 4, "spill_ops": 6, "mfma": 24}
    assert judge({"vgpr_spills": 0, "spill_ops": 0, "mfma": 24}, side, False) == "removes"
    assert judge({"vgpr_spills": 1, "spill_ops": 1, "mfma": 24}, side, False) == "recovers"
    assert judge({"vgpr_spills": 0, "spill_ops": 0, "mfma": 12}, side, False) == "lost-mfma"
    assert judge({"vgpr_spills": 17, "spill_ops": 22, "mfma": 24}, side, True) == "worse"
    assert judge({"vgpr_spills": 4, "spill_ops": 2, "mfma": 24}, side, True) == "better"
    assert judge(dict(side), side, True) == "same"


class _Bounded:
    """A runner whose time bound passes after its first build: what try_knobs sees of Explainer."""

    class b:
        options = staticmethod(lambda stage, opts: list(opts))
        by_hand = staticmethod(lambda stage, opts: " ".join(opts))
        side = staticmethod(lambda stage: "lto")

    def __init__(self):
        self.builds = 0

    def map(self, fn, items, phase):
        return [fn(i) for i in items]

    def build(self, stage, opts):
        if self.builds:
            raise OutOfTime
        self.builds += 1
        return type("Build", (), {"seconds": 1.0, "failure": "", "ok": True,
                                  "figures": {"vgpr_spills": 0, "spill_ops": 0, "mfma": 24}})()

    def verdict(self, stage, figures, base):
        return False, "no spill"


def test_knobs_past_the_time_bound_are_not_built_and_those_built_are_kept():
    knobs = [Knob("a", ("-a",), ""), Knob("b", ("-b",), ""), Knob("c", ("-c",), "")]
    side = {"vgpr_spills": 4, "spill_ops": 6, "mfma": 24}
    tries = try_knobs(_Bounded(), LINK, knobs, {"lto": side}, frozenset({"a", "b", "c"}))
    assert [(t.name, t.outcome) for t in tries] == [("a", "removes"), ("b", "not built"), ("c", "not built")]
    table = "\n".join(render(tries, side, "the link"))
    assert "| `b` | `-b` |" in table and "| - | not built (time bound) |" in table


# ---------------------------------------------------------------- with the real toolchain


def _by_hand(command: str, kernel: str, tmp: Path) -> dict:
    """Runs explain's printed command in a shell and reads the kernel's figures with the test's own regexes."""
    res = subprocess.run(["bash", "-c", command + " && cat out.s*"], capture_output=True, text=True,
                         env={**os.environ, "TMPDIR": str(tmp)})
    assert res.returncode == 0, res.stderr
    asm = res.stdout
    start = asm.index(f"\n{kernel}:")
    body = asm[start:asm.index(".Lfunc_end", start)]
    meta = asm[re.search(rf"\.name:\s+{re.escape(kernel)}\n", asm).start():]
    return {"vgpr_spills": int(re.search(r"\.vgpr_spill_count:\s+(\d+)", meta).group(1)),
            "spill_ops": len(re.findall(r"Folded (?:Spill|Reload)", body)),
            "vgpr": int(re.search(r"; NumVgprs: (\d+)", asm[start:]).group(1)),
            "mfma": len(re.findall(r"^\s+v_mfma", body, re.M))}


def _without(command: str, placed: list[str]) -> str:
    """The same command without the knob's flags."""
    words = shlex.split(command.split(" && ", 1)[1])
    i = next(i for i in range(len(words)) if words[i:i + len(placed)] == placed)
    return f'cd "$(mktemp -d)" && {shlex.join(words[:i] + words[i + len(placed):])}'


def _confirm(tries, kernel: str, tmp: Path) -> None:
    """Each knob given: its printed command gives the figures reported, its command without the knob others."""
    for t in tries:
        assert t.stage == LINK and t.placed == [a for o in t.options for a in ("-Xoffload-linker", f"-mllvm={o}")]
        got = _by_hand(t.command, kernel, tmp)
        assert got == {k: t.figures[k] for k in got}, t.name
        base = _by_hand(_without(t.command, t.placed), kernel, tmp)
        assert (base["vgpr_spills"], base["spill_ops"]) != (got["vgpr_spills"], got["spill_ops"]), t.name
        assert base["vgpr_spills"] > 0 and base["mfma"] == got["mfma"]


@needs_clang22
def test_on_the_readme_case_the_knobs_that_change_the_spill_do(tmp_path):
    """The README's first command's file: the knobs whose build spills otherwise, confirmed by hand."""
    r = explain_file(CASE / "repro.hip", ["-std=gnu++20", f"-I{CASE / 'include'}"], jobs=2, passes=[], dumps=False,
                     search=False, workdir=tmp_path / "w")
    assert r.target.startswith("_Z12wgrad_kernel") and len(r.knobs) == len(knob_table())
    changed = [t for t in r.knobs if t.outcome not in ("same", "error", "unavailable")]
    assert changed, [(t.name, t.outcome) for t in r.knobs]
    _confirm(changed[:2], r.target, tmp_path)
    same = next(t for t in r.knobs if t.outcome == "same")
    assert same.figures["vgpr_spills"] == r.baseline["lto"]["vgpr_spills"]


@needs_clang22
def test_on_the_reduced_readme_case_a_knob_removes_the_spill(tmp_path):
    r = explain_file(CASE / "result.hip", ["-std=gnu++20"], jobs=2, passes=[], dumps=False, search=False,
                     workdir=tmp_path / "w")
    removes = [t for t in r.knobs if t.outcome == "removes"]
    assert removes, [(t.name, t.outcome, t.figures) for t in r.knobs]
    assert r.target == K
    _confirm(removes, K, tmp_path)
    for t in removes:
        assert t.figures["vgpr_spills"] == 0 and t.figures["spill_ops"] == 0 and not t.holds
    md = render_markdown(r)
    section = md[md.index("## Backend options"):md.index("## Ablation")]
    assert "Remove the spill: " in section and all(f"`{t.name}`" in section and t.command in section for t in removes)


@needs_clang22
def test_the_cli_adds_a_knob_file_and_says_what_the_toolchain_lacks(tmp_path):
    """IR input, llc: a knob of the user's, one option llc does not have; the table's knobs go straight to llc."""
    from interestingness.oracle.precodegen import build_precodegen

    bc = tmp_path / "tiny.bc"
    bc.write_bytes(build_precodegen(CASE / "result.hip", ["-std=gnu++20"], timeout=120,
                                    tmp_dir=tmp_path).partitions[0])
    mine = tmp_path / "mine.toml"
    mine.write_text('[[knob]]\nname = "mine"\noptions = ["-amdgpu-sched-strategy=iterative-minreg"]\n'
                    'about = "by hand"\n\n[[knob]]\nname = "nope"\noptions = ["-no-such-llvm-option"]\n')
    res = subprocess.run([sys.executable, "-m", "reducer.cli", "explain", str(bc), "--json", "-q", "-j", "2",
                          "--passes", "early-machinelicm", "--no-dumps", "--no-search", "--knobs", str(mine)],
                         cwd=tmp_path, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert res.returncode == 0, res.stderr
    knobs = {k["name"]: k for k in json.loads(res.stdout)["knobs"]}
    assert knobs["nope"]["outcome"] == "unavailable" and "no-such-llvm-option" in knobs["nope"]["failure"]
    assert knobs["mine"]["placed"] == ["-amdgpu-sched-strategy=iterative-minreg"]
    assert knobs["mine"]["command"].startswith(str(LLC)) or "llc" in knobs["mine"]["command"].split()[0]
    got = subprocess.run(shlex.split(knobs["mine"]["command"]), capture_output=True, text=True, check=True).stdout
    assert f".vgpr_spill_count: {knobs['mine']['figures']['vgpr_spills']}\n" in got
    assert len(knobs) == len(knob_table()) + 2
    bad = tmp_path / "bad.toml"
    bad.write_text("[[knob]]\nname = 1\n")
    res = subprocess.run([sys.executable, "-m", "reducer.cli", "explain", str(bc), "--knobs", str(bad)],
                         cwd=tmp_path, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert res.returncode == 2 and "--knobs" in res.stderr
