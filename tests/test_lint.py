"""The linter and the type checker are part of the test command: `ruff check` and `mypy` (their
configuration, and the reason for each exception to it, is in pyproject.toml) pass on reducer/ and
interestingness/. Both come with the test extras (`pip install -e '.[test]'`, scripts/setup.sh) and
are run from the virtualenv the tests run in."""
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

BIN = Path(sys.executable).parent


def tool(name: str, *args: str) -> subprocess.CompletedProcess:
    exe = BIN / name
    assert exe.exists(), f"{exe} is missing: install the test extras (bash scripts/setup.sh)"
    return subprocess.run([str(exe), *args], cwd=ROOT, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("command", [("ruff", "check", "reducer", "interestingness"), ("mypy",)],
                         ids=lambda c: c[0])
def test_clean(command):
    r = tool(*command)
    assert r.returncode == 0, f"`{' '.join(command)}` is not clean:\n{r.stdout}{r.stderr}"
