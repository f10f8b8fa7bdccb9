#!/usr/bin/env python3
"""`plain`'s chain replayed level by level, as `Plain._chain` makes it: at each level the
file's size, its templates (`Plain.progress`), the footprint's printed callees and the reasons
it gives for the templates plain code calls that stay templates (`kept`), then how many of the
level's items the chain keeps (within a step's growth, no parse error more). Where the chain
stops on a real library's TU, and what a change to the plugin moves.

    .venv/bin/python benchmarks/plain_chain.py FILE FLAGS_FILE KERNEL [-o LAST_TEXT]

FILE is built as the oracle builds it (the flags file's directory the working directory);
KERNEL a mangled or plain kernel name.
"""
from __future__ import annotations

import argparse
import collections
import functools
import re
import shlex
import sys
import tempfile
import time
from itertools import chain
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from interestingness.compiler.compile import Compiler, prepare_flags  # noqa: E402
from interestingness.compiler.toolchain import find_toolchain  # noqa: E402
from reducer.passes import REGISTRY  # noqa: E402
from reducer.passes.plain import _level  # noqa: E402
from reducer.text import footprint  # noqa: E402
from reducer.text.edits import apply  # noqa: E402
from reducer.text.source import Source  # noqa: E402
from reducer.text.values import ClangValues  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("file", type=Path)
    ap.add_argument("flags", type=Path)
    ap.add_argument("kernel")
    ap.add_argument("-o", "--output", type=Path, help="write the last level's text here")
    args = ap.parse_args()
    cwd = args.flags.resolve().parent
    with tempfile.TemporaryDirectory() as tmp:
        prepared, _ = prepare_flags(shlex.split(args.flags.read_text()), cwd)
        c = Compiler(find_toolchain(), prepared, "t.hip", str(cwd), timeout=600, tmp_parent=tmp)
        values = ClangValues(c.diagnostics, plugin_run=functools.partial(
            c.plugin_output, flags=footprint.plugin_flags((args.kernel,))))
        step, text = REGISTRY["plain"], args.file.read_bytes()
        errors = Source(text, "cuda").error_count
        for level in range(1000):
            start = time.monotonic()
            fp = values.footprint(text, text)
            if fp is None:
                print(f"level {level}: no footprint (the file does not compile)")
                break
            print(f"level {level}: {len(text):,} B, {step.progress(Source(text, 'cuda'))} templates, "
                  f"{len(fp.callees)} callees printed, {len(fp.kept)} templates kept "
                  f"({time.monotonic() - start:.0f} s)")
            why = collections.Counter(re.sub(r"`[^`]*`", "`.`", w) for _, w in fp.kept)
            for reason, n in why.most_common():
                print(f"  {n:4d} {reason}")
            items, kept, after = _level(fp, len(text)), [], text
            for item in items:
                candidate = apply(text, chain.from_iterable((*kept, item)))
                if step.within_growth(text, candidate) and Source(candidate, "cuda").error_count <= errors:
                    kept, after = [*kept, item], candidate
            print(f"  items {len(items)}, kept {len(kept)}")
            if not kept:
                break
            text = after
        if args.output:
            args.output.write_bytes(text)


if __name__ == "__main__":
    main()
