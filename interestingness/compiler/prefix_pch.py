"""`#include <hip/hip_runtime.h>`, parsed once per process instead of once per build.

A flattened HIP candidate begins with that line, and with the shim its parse is most of a
front end's time (0.12 of 0.19 s on wgrad_quick_pos reduced; a compile error stops in the front end,
and more than half of a run's tests are compile errors). A precompiled header of a file holding
only that line, built with the build's own command, gives the compiler the same tokens as long
as nothing but whitespace and comments comes before the candidate's own include: the PCH is read
first, and that include is then a no-op (the header's include guard). With anything else first
(a macro, another include, a pragma) the build reads the header itself. The oracle uses it only
once the original has built the same code with it (notes/oracle.md).
"""
from __future__ import annotations

import atexit
import itertools
import os
import re
import shutil
import tempfile
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path

from interestingness.base.process import run

LINE = b"#include <hip/hip_runtime.h>\n"
# whitespace, /* */ comments and // comments not continued by a backslash, then the include line
# (trailing blanks allowed); nothing the preprocessor would turn into a token or a directive
_LEADS = re.compile(rb"\A(?:\s+|/\*.*?\*/|//(?:[^\\\n]|\\(?!\r?\n))*(?=\n))*"
                    rb"#[ \t]*include[ \t]*<hip/hip_runtime\.h>[ \t]*\r?\n", re.S)

_lock = threading.Lock()
_built: dict[tuple, str | None] = {}
_dir: list[str] = []
_count = itertools.count()


def applies(content: bytes) -> bool:
    """Whether `content` starts with the include, behind nothing but whitespace and comments."""
    return _LEADS.match(content) is not None


def flags(command: Sequence[str], env: Mapping[str, str], tmp_parent: str | None) -> list[str]:
    """The flags that read the PCH built with `command` (a device compile without its output and
    input arguments), built on first use in this process; [] when it cannot be built."""
    key = (tuple(command), tuple(sorted(env.items())))
    with _lock:
        if key not in _built:
            _built[key] = _build(command, env, tmp_parent, next(_count))
        path = _built[key]
    return ["-Xclang", "-include-pch", "-Xclang", path] if path else []


def _build(command: Sequence[str], env: Mapping[str, str], tmp_parent: str | None, n: int) -> str | None:
    if not _dir or not os.path.isdir(_dir[0]):  # none yet, or removed with its parent (reduce explain's work dir)
        if tmp_parent is not None:
            os.makedirs(tmp_parent, mode=0o700, exist_ok=True)
        _dir[:] = [tempfile.mkdtemp(prefix=f"reduce-pch-{os.getpid()}-", dir=tmp_parent)]
        atexit.register(shutil.rmtree, _dir[0], True)
    work = Path(_dir[0])
    source, out = work / f"prefix{n}.hip", work / f"prefix{n}.pch"
    source.write_bytes(LINE)
    res = run([*command, "-fsyntax-only", "-Xclang", "-emit-pch", "-Xclang", "-o", "-Xclang", str(out), str(source)],
              cwd=work, timeout=300, env=env)
    return str(out) if res.returncode == 0 and out.is_file() else None


def forget(path: str) -> None:
    """Build the PCH at `path` again on its next use (clang could not read it)."""
    with _lock:
        for key in [k for k, p in _built.items() if p == path]:
            del _built[key]

