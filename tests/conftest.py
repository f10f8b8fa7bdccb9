import atexit
import fcntl
import os
import shutil
import stat
import subprocess
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# The tests' reductions must neither read nor fill the user's verdict cache.
os.environ["XDG_CACHE_HOME"] = _CACHE = tempfile.mkdtemp(prefix="gpu-reduce-test-cache-")
atexit.register(shutil.rmtree, _CACHE, True)
CLANG = Path("/usr/lib/llvm-22/bin/clang++")


def write_script(path: Path, body: str) -> Path:
    path.write_text("#!/bin/bash\nset -u\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


@pytest.fixture
def script(tmp_path):
    return lambda body, name="test.sh": write_script(tmp_path / name, body)


@pytest.fixture(scope="session", autouse=True)
def footprint_plugin():
    """The footprint plugin (tools/footprint) built as scripts/setup.sh builds it, when missing or
    older than its source: the runs' footprint passes load it. One build for both test workers."""
    tool = ROOT / "tools" / "footprint"
    if shutil.which("make") is None or not Path("/usr/lib/llvm-22/include/clang").is_dir():
        return
    (tool / "build").mkdir(exist_ok=True)
    with open(tool / "build" / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        subprocess.run(["make", "-s", "-C", str(tool)], check=True)


needs_gxx = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ not installed")
needs_clang22 = pytest.mark.skipif(not CLANG.exists(), reason="clang-22 not installed")
