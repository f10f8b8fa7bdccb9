
from reducer.flatten import flatten, include_dirs


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
