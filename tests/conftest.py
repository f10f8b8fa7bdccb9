import atexit
import os
import shutil
import stat
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


needs_gxx = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ not installed")
needs_clang22 = pytest.mark.skipif(not CLANG.exists(), reason="clang-22 not installed")
