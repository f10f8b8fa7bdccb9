"""Reading a compiler's stderr the way a person would: the first error, not the first lines."""
from __future__ import annotations

import re

# `file:line:col: error: ...`, `clang++: error: ...`, `ld.lld: error: ...`, `error: ...`
_DIAGNOSTIC = re.compile(r"^(?:.*?:\d+:\d+: |[\w.+-]+: )?(?:fatal )?(error|warning|note|remark): ")
_TRAIL = re.compile(r"^In file included from |^\s+from ")
_SUMMARY = re.compile(r"\b(?:warnings?|errors?) generated\b")


def first_error(stderr: str, limit: int = 12) -> str:
    """The first `error:` of a compiler's stderr with its include trail and source snippet: what a
    user needs to see, where the first lines may be warnings. Clang prints a trail only when it
    changes, so an error in the header of an earlier warning gets that warning's trail."""
    lines = stderr.splitlines()
    trail: tuple[list[str], str] = ([], "")  # the last printed trail, and the file it led to
    for i, line in enumerate(lines):
        m = _DIAGNOSTIC.match(line)
        if not m:
            continue
        start = i
        while start > 0 and _TRAIL.match(lines[start - 1]):
            start -= 1
        file = line.split(":", 1)[0]
        if start < i:
            trail = (lines[start:i], file)
        if m.group(1) != "error":
            continue
        end = i + 1
        while end < len(lines) and not _DIAGNOSTIC.match(lines[end]) and not _TRAIL.match(lines[end]) \
                and not _SUMMARY.search(lines[end]):
            end += 1
        inherited = trail[0] if start == i and trail[1] == file else []
        return "\n".join((inherited + lines[start:end])[:limit])
    return "\n".join(stderr.strip().splitlines()[:8])
