"""What reproduces a pass that raised: WORKDIR/pass-bugs/N/ with the pass's name, the traceback,
the exact text it was given, the chunk's edits when applying failed, and a README with a
one-line command. The run drops the pass and goes on (C-Vise's pass-bug reports)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..engine.engine import PassBug
from .state import PassBugRecord
from .workdir import PASS_BUGS, WorkDir


def stage_words(bug: PassBug) -> str:
    return "enumerating its items" if bug.stage == "items" else "applying its items"


def keep(wd: WorkDir, bug: PassBug, name: str) -> PassBugRecord:
    """Write pass-bugs/N/ for `bug`, raised on the part called `name`; its record for the state."""
    where = wd.write_pass_bug(bug.number, {
        "pass": f"{bug.pass_name}\n".encode(),
        "traceback.txt": bug.traceback.encode("utf-8", "replace"),
        f"input{Path(name).suffix}": bug.text,
        **({"edits.json": _edits_json(bug.edits)} if bug.stage == "apply" else {}),
        "README.md": _readme(bug, name).encode(),
    })
    return PassBugRecord(bug.number, bug.pass_name, bug.run, bug.searches, name, bug.level, bug.stage, bug.error,
                         str(where))


def _edits_json(edits: list) -> bytes:
    """The chunk's edits as the broken pass made them: whatever they hold is shown, never trusted."""
    def shown(edit: Any) -> Any:
        if not (isinstance(edit, tuple) and len(edit) == 3):
            return repr(edit)
        start, end, replacement = edit
        if isinstance(replacement, bytes):
            replacement = replacement.decode("utf-8", "backslashreplace")
        return {"start": start, "end": end, "replacement": replacement}
    return (json.dumps([shown(e) for e in edits], indent=1, default=repr) + "\n").encode()


def _readme(bug: PassBug, name: str) -> str:
    suffix = Path(name).suffix
    call = (f"REGISTRY[{bug.pass_name!r}].items(Source(open('input{suffix}', 'rb').read(), {bug.language!r}), "
            f"{bug.level})")
    lines = [f"# Pass bug {bug.number}: `{bug.pass_name}`", "",
             f"The pass raised `{bug.error}` while {stage_words(bug)} (level {bug.level}) on `{name}`. The run "
             "dropped the pass and went on without it.", "",
             f"- `input{suffix}`: the exact text the pass was given",
             "- `traceback.txt`: the traceback"]
    if bug.stage == "apply":
        lines.append("- `edits.json`: the edits of the chunk being applied to it (byte offsets)")
    lines += ["", "Reproduce (from the repository root, with PYTHONPATH pointing at it):", "", "```sh",
              f"cd {PASS_BUGS}/{bug.number} && python -c \"from reducer.passes import REGISTRY; "
              f"from reducer.text.source import Source; print(len({call}))\"", "```", ""]
    return "\n".join(lines)
