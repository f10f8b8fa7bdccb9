"""The `reduce` command with a deliberately broken pass registered as `broken`, for tests of
pass-bug containment: `python tests/broken_pass.py MODE REDUCE-ARGS...`.

`broken` proposes line deletions like `lines` until the file is below 700 bytes; from then on it
raises while enumerating its items (MODE `items`) or hands the engine an item that `apply` cannot
apply (MODE `apply`: a str replacement)."""
import sys

from reducer import passes
from reducer.cli.main import main
from reducer.passes.text import Lines
from reducer.text.edits import Edit


class Broken(Lines):
    name = "broken"
    summary = "lines, until it breaks"

    def __init__(self, mode: str):
        super().__init__()
        self.mode = mode

    def enumerate(self, src):
        items = super().enumerate(src)
        if len(src.text) >= 700:
            return items
        if self.mode == "items":
            raise ValueError("deliberately broken on a file below 700 bytes")
        return [(Edit(0, 1, "not bytes"),), *items]


if __name__ == "__main__":
    passes.REGISTRY["broken"] = Broken(sys.argv.pop(1))
    sys.exit(main())
