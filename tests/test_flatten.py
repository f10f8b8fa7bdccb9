
import shlex
from pathlib import Path

from conftest import needs_clang22
from transforms import mfma_counts

from reducer.text.flatten import flatten, include_dirs
from reducer.text.source import Source

ROOT = Path(__file__).resolve().parent.parent


def test_include_dirs_from_flags(tmp_path):
    flags = ["-Iinc", "-I", "src", "-iquote", "q", "-isystem", "sys", "-std=c++17"]
    assert include_dirs(flags, tmp_path) == [tmp_path / "inc", tmp_path / "src", tmp_path / "q"]


def test_flatten_inlines_project_headers_once_in_order(tmp_path):
    (tmp_path / "inc" / "lib").mkdir(parents=True)
    (tmp_path / "inc" / "lib" / "a.h").write_text('#pragma once\n#include "b.h"\nint a;\n')
    (tmp_path / "inc" / "lib" / "b.h").write_text("#ifndef B_H\n#define B_H\nint b;\n#endif\n")
    (tmp_path / "local.h").write_text("int local;")
    main = tmp_path / "main.cpp"
    text = b'#include <vector>\n#include <lib/a.h>\n#include "lib/b.h"\n#include "local.h"\nint main;\n'
    main.write_bytes(text)
    flat, headers = flatten(main, text, [tmp_path / "inc"])
    assert flat == (b"#include <vector>\n#ifndef B_H\n#define B_H\nint b;\n#endif\nint a;\n"
                    b"int local;\nint main;\n")
    assert [h.name for h in headers] == ["a.h", "b.h", "local.h"]


def test_unresolvable_includes_stay(tmp_path):
    main = tmp_path / "m.hip"
    text = b'#include <hip/hip_runtime.h>\n#include "missing.h"\n'
    assert flatten(main, text, []) == (text, [])


def test_unguarded_headers_are_inlined_at_every_include_guarded_ones_once(tmp_path):
    (tmp_path / "list.def").write_text("X(a)\nX(b)\n")  # an X-macro list: no guard on purpose
    (tmp_path / "guarded.h").write_text("// comment\n#if !defined(G_H)\n#define G_H\nint g;\n#endif  // G_H\n")
    (tmp_path / "fake.h").write_text("#ifndef F_H\n#define F_H\n#endif\nint after_endif;\n")  # not a guard
    main = tmp_path / "m.cpp"
    text = (b'#include "guarded.h"\n#include "guarded.h"\n#include "fake.h"\n#include "fake.h"\n'
            b'#define X(n) int n;\n#include "list.def"\n#undef X\n#define X(n) int n##2;\n#include "list.def"\n')
    flat, headers = flatten(main, text, [])
    assert flat.count(b"int g;") == 1 and flat.count(b"int after_endif;") == 2
    assert flat.count(b"X(a)\nX(b)\n") == 2
    assert [h.name for h in headers] == ["guarded.h", "fake.h", "list.def"]


def test_an_unguarded_header_including_itself_stays_an_include(tmp_path):
    (tmp_path / "self.h").write_text('int s;\n#include "self.h"\n')
    main = tmp_path / "m.cpp"
    flat, _ = flatten(main, b'#include "self.h"\n', [])
    assert flat == b'int s;\n#include "self.h"\n'


def test_guarded_headers_including_each_other_leave_no_include(tmp_path):
    """composable_kernel: ck/utility/common_header.hpp includes multi_index.hpp, which includes
    "common_header.hpp" again. The preprocessor skips the inner include (pragma once, or the
    guard already defined); an include left in the flattened file finds nothing next to it."""
    (tmp_path / "ck").mkdir()
    (tmp_path / "ck" / "common.h").write_text('#pragma once\n#include "multi.h"\nint common;\n')
    (tmp_path / "ck" / "multi.h").write_text('#pragma once\n#include "common.h"\n#include "guard.h"\nint multi;\n')
    (tmp_path / "ck" / "guard.h").write_text('#ifndef GUARD_H\n#define GUARD_H\n#include "guard.h"\nint guard;\n#endif\n')
    main = tmp_path / "m.cpp"
    flat, headers = flatten(main, b'#include "ck/common.h"\n', [])
    assert b"#include" not in flat
    assert flat == b"#ifndef GUARD_H\n#define GUARD_H\nint guard;\n#endif\nint multi;\nint common;\n"
    assert [h.name for h in headers] == ["common.h", "multi.h", "guard.h"]


@needs_clang22
def test_flattening_the_corpus_case_keeps_the_kernel():
    """16 hipconv headers into one file: it parses no worse than they did and builds the same
    kernel with the same MFMA count, with no project include left."""
    case = ROOT / "corpora" / "wgrad_c120_pos"
    flags = tuple(f if not f.startswith("-I") else "-I" + str(ROOT / f[2:]) for f in shlex.split((case / "flags").read_text()))
    text = (case / "repro.hip").read_bytes()
    flat, headers = flatten(case / "repro.hip", text, include_dirs(flags, ROOT))
    assert len(headers) == 16 and b'#include "' not in flat and b"#include <hipconv" not in flat
    assert Source(flat, "cuda").error_count <= sum(Source(h.read_bytes(), "cuda").error_count for h in headers)
    assert mfma_counts(flat, ("-std=gnu++20",)) == mfma_counts(text, flags) == [24]
