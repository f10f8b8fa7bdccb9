"""Writing results without ever leaving a half-written file or touching the user's input."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_FILE_MODE = 0o666 & ~_umask()


def atomic_write(path: Path, data: bytes) -> None:
    """Write to a temp file beside `path`, fsync, then rename over it: a reader (or a kill at
    any moment) sees the old content or the new one, never a mix."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, _FILE_MODE)  # mkstemp's 0600 is for the temp name, not for the result
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def default_output(path: Path) -> Path:
    """repro.cpp -> repro.reduced.cpp (the extension stays, so editors and compilers still know it)."""
    return path.with_name(f"{path.stem}.reduced{path.suffix}")
