"""C-Reduce-compatible script oracle: the script runs with no argument in a fresh directory
holding the candidate under the original file name; exit 0 means interesting. With
`test_arg` (llvm-reduce style) the candidate's path is passed as the last argument instead.

For a file set (`tree`), the test directory holds every file of the candidate at its path
relative to the set's root, and the script runs in the main file's directory of that copy: the
main file is there under its own name, and each header is where it is relative to the main file
in the user's tree (`../include/lib/a.h`, `local.h`)."""
from __future__ import annotations

import hashlib
import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from interestingness.base.bundle import Tree, materialise
from interestingness.base.process import run, test_dir
from interestingness.base.verdict import NoConfirmation, Verdict

# Signals that mean the machine, not the candidate, failed (OOM killer, bus error on full disk).
_INFRA_SIGNALS = {9, 7}


class ScriptError(Exception):
    """The script cannot be run at all: missing, a directory, or not executable."""


@dataclass(frozen=True)
class ScriptOracle(NoConfirmation):
    script: Path
    filename: str
    timeout: float | None = None
    tmp_root: Path | None = None
    test_arg: bool = False
    keep_dirs: bool = False
    tree: Tree | None = None  # candidates are file sets (bundles) of this tree
    ignores_layout = False  # a script may grep comments or count columns

    @classmethod
    def create(cls, script: Path, filename: str, **options: Any) -> ScriptOracle:
        script = Path(script).expanduser().absolute()
        if not script.exists():
            raise ScriptError(f"test script not found: {script}")
        if not script.is_file():
            raise ScriptError(f"test script is not a file: {script}")
        if not os.access(script, os.X_OK):
            raise ScriptError(f"test script is not executable: {script} (chmod +x it)")
        return cls(script=script, filename=filename, **options)

    def identity(self) -> dict[str, Any]:
        return {
            "oracle": "script",
            "script": str(self.script),
            "script_sha256": hashlib.sha256(self.script.read_bytes()).hexdigest(),
            "filename": self.filename,
            "test_arg": self.test_arg,
            "timeout": self.timeout,
            **({"tree_main": self.tree.main} if self.tree else {}),
        }

    def test(self, content: bytes) -> Verdict:
        start = time.monotonic()
        try:
            workdir = test_dir("test-", self.tmp_root)
        except OSError as e:
            return Verdict(False, f"cannot make a test directory: {e}", infra_failure=True)
        try:
            if self.tree is None:
                candidate = workdir / self.filename
                candidate.write_bytes(content)
            else:
                candidate = materialise(workdir, content)[0]
            cmd = [self.script, candidate] if self.test_arg else [self.script]
            env = {**os.environ, "TMPDIR": str(workdir)}
            done = run(cmd, cwd=candidate.parent, timeout=self.timeout, env=env)
        except OSError as e:
            return Verdict(False, f"could not run the test: {e}", infra_failure=True,
                           seconds=time.monotonic() - start)
        finally:
            if not self.keep_dirs:
                shutil.rmtree(workdir, ignore_errors=True)
        if done.timed_out:
            return Verdict(False, f"timeout after {self.timeout:g}s", seconds=done.seconds)
        if done.killed_by_signal in _INFRA_SIGNALS:
            return Verdict(False, f"test killed by signal {done.killed_by_signal}", infra_failure=True,
                           seconds=done.seconds)
        reason = "" if done.returncode == 0 else f"exit {done.returncode}"
        return Verdict(done.returncode == 0, reason, seconds=done.seconds,
                       details={"stderr_tail": done.stderr[-2000:]} if done.returncode else {})
