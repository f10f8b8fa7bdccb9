"""What the backends made of a front end's bitcode, kept so that the same IR is not built twice.

With the shared front end (compile.Build), each side of a test is a deterministic function of
the bitcode IRGen gave, the side's pipeline commands, the toolchain and the environment the
compiler reads. A reduction tries many candidates that change nothing the compiler keeps (a
deletion of unused code, a comment, a declaration nobody calls): their bitcode is the one of a
candidate built before, most often the current best's. The memo gives such a candidate that
build's summary (every kernel's figures and code digest, metrics.Summary), or its deterministic
failure, and the test costs one front-end run.

- **Full keys.** An entry is one file holding the whole key (the JSON of everything but the
  bitcode, and the bitcode bytes) and the value. Its name is a digest of the key, an index
  only: a hit compares the stored key with the asked one, byte for byte, and a mismatch is a
  miss. Nothing the backends read is left out of the key: the commands (with the output paths
  and the build directory written as placeholders), the toolchain's identity (hashes of clang,
  libLLVM, libclang-cpp and lld), the environment.
- **Shared by the processes of a run.** The files live in a directory of the run's temp dir,
  written to a temporary name and renamed into place, so a reader sees a whole entry or none,
  and every worker process sees what the others built.
- **Bounded.** Past `max_bytes`, the least recently used entries (file times, touched on a hit)
  are removed down to three quarters of it. A reader that loses an entry to another process's
  eviction has a miss.
- **When in doubt, build.** Any entry that cannot be read, parsed or matched is a miss. Only
  deterministic outcomes are kept: built code and compile errors; timeouts and failures of the
  machinery never.
"""
from __future__ import annotations

import hashlib
import json
import os
import struct
import tempfile
from pathlib import Path
from typing import Any

_MAGIC = b"gpu-reduce ir memo 1\n"
_LENGTHS = struct.Struct(">QQ")
DEFAULT_MAX_BYTES = 512 << 20


class IrMemo:
    """A bounded memo of {(key, bitcode): value} in `directory`, shared by the processes of a run."""

    def __init__(self, directory: str | os.PathLike, max_bytes: int = DEFAULT_MAX_BYTES):
        self.directory = os.fspath(directory)
        self.max_bytes = max_bytes
        os.makedirs(self.directory, mode=0o700, exist_ok=True)

    def get(self, bitcode: bytes, key: str) -> dict[str, Any] | None:
        """The value stored for exactly this key and bitcode, or None."""
        path = self._path(bitcode, key)
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError:
            return None
        keyb = key.encode()
        head = len(_MAGIC) + _LENGTHS.size
        if not data.startswith(_MAGIC) or len(data) < head:
            return None
        nkey, nbitcode = _LENGTHS.unpack_from(data, len(_MAGIC))
        if nkey != len(keyb) or nbitcode != len(bitcode):
            return None
        if data[head:head + nkey] != keyb or data[head + nkey:head + nkey + nbitcode] != bitcode:
            return None  # another key under the same digest: never answer for it
        try:
            value = json.loads(data[head + nkey + nbitcode:])
        except ValueError:
            return None
        try:
            os.utime(path)  # recently used
        except OSError:
            pass
        return value if isinstance(value, dict) else None

    def put(self, bitcode: bytes, key: str, value: dict[str, Any]) -> None:
        """Store `value` for this key and bitcode (atomically); a failure to write is no error."""
        keyb = key.encode()
        data = b"".join((_MAGIC, _LENGTHS.pack(len(keyb), len(bitcode)), keyb, bitcode,
                         json.dumps(value, sort_keys=True).encode()))
        path = self._path(bitcode, key)
        try:
            fd, tmp = tempfile.mkstemp(prefix=".put-", dir=self.directory)
            try:
                with os.fdopen(fd, "wb") as f:
                    f.write(data)
                os.replace(tmp, path)
            except BaseException:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass
                raise
        except OSError:
            return
        self._evict()

    def entries(self) -> int:
        return sum(1 for e in self._scan())

    def _path(self, bitcode: bytes, key: str) -> str:
        h = hashlib.sha256()
        keyb = key.encode()
        h.update(_LENGTHS.pack(len(keyb), len(bitcode)))
        h.update(keyb)
        h.update(bitcode)
        return os.path.join(self.directory, h.hexdigest() + ".entry")

    def _scan(self) -> list[tuple[float, int, str]]:
        found = []
        try:
            with os.scandir(self.directory) as it:
                for e in it:
                    if e.name.endswith(".entry"):
                        try:
                            st = e.stat()
                        except OSError:
                            continue
                        found.append((st.st_mtime, st.st_size, e.path))
        except OSError:
            pass
        return found

    def _evict(self) -> None:
        found = self._scan()
        total = sum(size for _, size, _ in found)
        if total <= self.max_bytes:
            return
        for _, size, path in sorted(found):
            if total <= self.max_bytes * 3 // 4:
                break
            try:
                os.unlink(path)
            except OSError:
                pass
            total -= size


def default_directory(tmp_parent: str | None) -> Path:
    """The memo's directory for a run whose temp dir is `tmp_parent` (a new one when None)."""
    if tmp_parent is not None:
        return Path(tmp_parent, "ir-memo")
    return Path(tempfile.mkdtemp(prefix="reduce-ir-memo-"))
