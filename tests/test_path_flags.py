"""One reading of clang's path options (interestingness/base/path_flags.py) for every reader: the
compile, the file set's copies, flattening and the bug report see the same directories."""
from interestingness.base.bundle import Tree
from interestingness.base.path_flags import path_flags
from interestingness.compiler.compile import prepare_flags, user_dirs
from reducer.run.bugreport import _portable
from reducer.text.flatten import include_dirs

FLAGS = ["-Iinc", "-I", "a b", "-isystem", "sys", "-iquoteq", "-idirafter/abs/after", "-DX", "-include", "h.h", "-I"]


def test_options_joined_or_separate_each_with_its_path():
    assert [(f.option, f.value, f.tokens) for f in path_flags(FLAGS)] == [
        ("-I", "inc", ("-Iinc",)), ("-I", "a b", ("-I", "a b")), ("-isystem", "sys", ("-isystem", "sys")),
        ("-iquote", "q", ("-iquoteq",)), ("-idirafter", "/abs/after", ("-idirafter/abs/after",)),
        (None, None, ("-DX",)), (None, None, ("-include",)), (None, None, ("h.h",)), ("-I", None, ("-I",))]
    assert [f.spelled("/d") for f in path_flags(FLAGS) if f.value][:2] == [["-I/d"], ["-I", "/d"]]


def test_every_reader_sees_the_same_directories(tmp_path):
    prepared, _ = prepare_flags(FLAGS, tmp_path)
    assert prepared[2:] == (f"-I{tmp_path}/inc", "-I", f"{tmp_path}/a b", "-isystem", f"{tmp_path}/sys",
                            f"-iquote{tmp_path}/q", "-idirafter/abs/after", "-DX", "-include", f"{tmp_path}/h.h", "-I")
    assert user_dirs(prepared) == [f"{tmp_path}/inc", f"{tmp_path}/a b", f"{tmp_path}/sys"]
    assert include_dirs(FLAGS, tmp_path) == [(tmp_path / d).resolve() for d in ("inc", "a b", "q")]
    assert Tree(str(tmp_path), "m.c").rewrite_flags(prepared[2:5], "src") == (
        "-Isrc/inc", f"-I{tmp_path}/inc", "-Isrc/a b", "-I", f"{tmp_path}/a b")
    assert _portable(FLAGS) == ["-I", "inc", "-I", "a b", "-isystem", "sys", "-iquote", "q", "-DX", "-include", "h.h",
                                "-I"]
