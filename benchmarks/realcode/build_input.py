#!/usr/bin/env python3
"""Rebuild the input of a real-code benchmark (issue 28) from public library code.

A manifest (`benchmarks/realcode/*.json`, committed) records where the code comes from -- a
public repository, a commit and the files the reproducer needs -- with the reproducer's own text
(a few lines of ours), the clang flags and the predicate. No fetched code is in this repository:
this script takes the files out of a git copy of that repository and writes the case into a
directory outside the tree, or under `benchmarks/realcode/input/` (git-ignored, the default):

    OUT/repro.hip       the reproducer (the manifest's text)
    OUT/flags           its clang flags, one line, include directories absolute (the corpora's
                        `flags` convention, so benchmarks that take a corpus case take OUT)
    OUT/predicate       the predicate, when the manifest has one other than the default
    OUT/include/...     the library's files at their paths in the repository
    OUT/manifest.json   a copy of the manifest it was built from

Where the files come from, first that works:

1. `--git-dir DIR`, a bare or non-bare git directory holding the commit (default: the snapshot
   the project's fetch tool brings to /work/.mirror/OWNER+NAME/repo);
2. `git clone --filter=blob:none` of the manifest's public URL into a temporary directory, then a
   checkout of just the listed files at the commit. That needs the network: the machines this
   project runs on have none beyond package registries, so there only 1. works.

Every file is checked against its recorded blob id. Files the library's build generates
(composable_kernel's `ck/config.h`, from `config.h.in` by CMake's configure_file) are generated
the same way from the recorded template and values.

    python benchmarks/realcode/build_input.py                       # every manifest, default places
    python benchmarks/realcode/build_input.py benchmarks/realcode/ck_conv_fwd.json -o /tmp/ck
    python benchmarks/realcode/build_input.py --list-files M.json   # re-derive the file list (clang -H)
    python benchmarks/realcode/build_input.py --check               # and run `reduce check` on it
    python benchmarks/realcode/build_input.py --check ck_tile_gemm_fp16_256x256x32   # one input, by name

`--list-files` extracts the whole listed trees (`trees` in the manifest) at the commit into a
temporary directory, preprocesses the reproducer there with the manifest's flags and `-H` (device side,
gfx950, with the HIP shim, as the oracle builds it) and prints the headers it reads from the
library with their blob ids, in the manifest's format: the way the list was made.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
DEFAULT_OUT = HERE / "input"
MIRRORS = Path("/work/.mirror")
CLANG = os.environ.get("REDUCE_CLANG", "/usr/lib/llvm-22/bin/clang++")


class Source:
    """Files of one commit of a repository, read from a git directory."""

    def __init__(self, git_dir: Path, commit: str):
        self.git_dir, self.commit = git_dir, commit

    def _git(self, *args: str, **kw) -> subprocess.CompletedProcess:
        return subprocess.run(["git", f"--git-dir={self.git_dir}", *args], capture_output=True, check=True, **kw)

    def has_commit(self) -> bool:
        try:
            self._git("cat-file", "-e", f"{self.commit}^{{commit}}")
            return True
        except (subprocess.CalledProcessError, FileNotFoundError):
            return False

    def blob_ids(self, paths: list[str]) -> dict[str, str]:
        """path -> blob id at the commit (paths that are not there are left out)."""
        out = self._git("ls-tree", "-z", self.commit, "--", *paths).stdout.decode()
        ids = {}
        for entry in filter(None, out.split("\0")):
            meta, path = entry.split("\t", 1)
            ids[path] = meta.split()[2]
        return ids

    def read(self, path: str) -> bytes:
        return self._git("cat-file", "blob", f"{self.commit}:{path}").stdout

    def export(self, trees: list[str], dest: Path) -> None:
        """Whole trees at the commit, for --list-files."""
        archive = self._git("archive", "--format=tar", self.commit, "--", *trees).stdout
        subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)


def default_git_dir(repo: str) -> Path:
    owner, name = repo.split("/")
    return MIRRORS / f"{owner}+{name}" / "repo"


def clone(url: str, commit: str, paths: list[str], where: Path) -> Source:
    """A blob-less clone of `url` with the listed files checked out at `commit` (needs network)."""
    subprocess.run(["git", "clone", "--quiet", "--filter=blob:none", "--no-checkout", url, str(where)], check=True)
    src = Source(where / ".git", commit)
    if not src.has_commit():
        subprocess.run(["git", "-C", str(where), "fetch", "--quiet", "--filter=blob:none", "origin", commit], check=True)
    # one checkout of just these paths fetches their blobs in a batch
    subprocess.run(["git", "-C", str(where), "checkout", "--quiet", commit, "--", *paths], check=True)
    return src


def open_source(manifest: dict, git_dir: Path | None, tmp: Path) -> Source:
    repo, commit = manifest["repository"], manifest["commit"]
    candidates = [git_dir] if git_dir is not None else [default_git_dir(repo)]
    for d in candidates:
        if d.exists() and (src := Source(d, commit)).has_commit():
            return src
    where = git_dir if git_dir is not None else default_git_dir(repo)
    print(f"{where}: no git directory with commit {commit}; cloning {manifest['url']} (needs the network)",
          file=sys.stderr)
    try:
        return clone(manifest["url"], commit, [f["path"] for f in manifest["files"]] +
                     [g["template"] for g in manifest.get("generated", [])], tmp / "clone")
    except subprocess.CalledProcessError as e:
        raise SystemExit(f"cannot get {repo} at {commit} ({shlex.join(e.cmd)} failed): give --git-dir a git "
                         f"directory holding the commit, e.g. the fetch tool's snapshot") from None


def configure_file(template: str, values: dict[str, str]) -> str:
    """CMake's configure_file for the lines a header template uses: `#cmakedefine VAR rest`
    becomes `#define VAR rest` with `@VAR@`s replaced when VAR is set, `/* #undef VAR */` when not;
    `@VAR@` and `${VAR}` elsewhere become the value (empty when unset)."""
    def define(m: re.Match) -> str:
        var, rest = m.group(1), m.group(2)
        if values.get(var, "") in ("", "0", "OFF", "FALSE", "NO", "N", "IGNORE", "NOTFOUND"):
            return f"/* #undef {var} */"
        return f"#define {var}{substitute(rest)}"

    def substitute(text: str) -> str:
        return re.sub(r"@(\w+)@|\$\{(\w+)\}", lambda m: values.get(m.group(1) or m.group(2), ""), text)

    out = re.sub(r"^#cmakedefine[ \t]+(\w+)([^\n]*)$", define, template, flags=re.MULTILINE)
    return substitute(out)


def flags_for(manifest: dict, out: Path) -> list[str]:
    """The manifest's flags with `{input}` replaced by the case directory."""
    return [f.replace("{input}", str(out)) for f in manifest["flags"]]


def build(manifest: dict, out: Path, git_dir: Path | None) -> None:
    with tempfile.TemporaryDirectory(prefix="realcode-") as t:
        src = open_source(manifest, git_dir, Path(t))
        paths = [f["path"] for f in manifest["files"]]
        ids = src.blob_ids(paths + [g["template"] for g in manifest.get("generated", [])])
        if out.exists():
            shutil.rmtree(out)
        out.mkdir(parents=True)
        bad = []
        for f in manifest["files"]:
            if ids.get(f["path"]) != f["blob"]:
                bad.append(f"{f['path']}: blob {ids.get(f['path'])}, recorded {f['blob']}")
                continue
            dest = out / f["path"]
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(src.read(f["path"]))
        for g in manifest.get("generated", []):
            if ids.get(g["template"]) != g["template_blob"]:
                bad.append(f"{g['template']}: blob {ids.get(g['template'])}, recorded {g['template_blob']}")
                continue
            text = configure_file(src.read(g["template"]).decode(), g["values"])
            dest = out / g["path"]
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_text(text)
        if bad:
            raise SystemExit("files differ from the manifest's record:\n  " + "\n  ".join(bad))
    (out / "repro.hip").write_text(manifest["repro"])
    (out / "flags").write_text(shlex.join(flags_for(manifest, out)) + "\n")
    if manifest.get("predicate"):
        (out / "predicate").write_text(manifest["predicate"] + "\n")
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")


def list_files(manifest: dict, git_dir: Path | None) -> list[dict]:
    """The library files the reproducer reads, found by preprocessing it against whole trees."""
    with tempfile.TemporaryDirectory(prefix="realcode-") as t:
        tmp = Path(t)
        src = open_source(manifest, git_dir, tmp)
        case = tmp / "case"
        case.mkdir()
        src.export(manifest["trees"], case)
        for g in manifest.get("generated", []):
            (case / g["path"]).write_text(configure_file(src.read(g["template"]).decode(), g["values"]))
        (case / "repro.hip").write_text(manifest["repro"])
        shim = ROOT / "interestingness" / "compiler" / "shim"
        cmd = [CLANG, "-x", "hip", "--offload-arch=gfx950", "--offload-device-only", "-nogpuinc", "-nogpulib",
               *flags_for(manifest, case), "-isystem", str(shim), "-E", "-H", "-o", os.devnull,
               str(case / "repro.hip")]
        # -H: every header opened, one a line after dots for its depth (-M writes nothing for a
        # device-only HIP compile)
        shown = subprocess.run(cmd, check=True, cwd=case, capture_output=True, text=True).stderr
        deps = [line.split(" ", 1)[1] for line in shown.splitlines() if re.match(r"\.+ ", line)]
        generated = {g["path"] for g in manifest.get("generated", [])}
        rel = []
        for d in deps:
            p = Path(d).resolve()
            if p.is_relative_to(case.resolve()) and p != (case / "repro.hip").resolve():
                r = p.relative_to(case.resolve()).as_posix()
                if r not in generated and r not in rel:
                    rel.append(r)
        ids = src.blob_ids(rel)
        return [{"path": r, "blob": ids[r]} for r in sorted(rel)]


def manifest_path(arg: str) -> Path:
    """A manifest's path, or an input's name for the manifest of that name here."""
    path = Path(arg)
    if not path.exists() and (HERE / f"{arg}.json").exists():
        return HERE / f"{arg}.json"
    return path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("manifests", nargs="*", type=manifest_path,
                    help="manifest files or input names (NAME for benchmarks/realcode/NAME.json); "
                         "default: every benchmarks/realcode/*.json")
    ap.add_argument("-o", "--out", type=Path,
                    help=f"case directory (one manifest), default {DEFAULT_OUT.relative_to(ROOT)}/NAME")
    ap.add_argument("--git-dir", type=Path, help="git directory holding the commit "
                                                 "(default: /work/.mirror/OWNER+NAME/repo)")
    ap.add_argument("--list-files", action="store_true", help="print the file list the reproducer needs, and stop")
    ap.add_argument("--check", action="store_true",
                    help="run `reduce check` on the built case (exit status 1 when one is not interesting)")
    args = ap.parse_args()
    manifests = args.manifests or sorted(HERE.glob("*.json"))
    failed = 0
    if args.out and len(manifests) != 1:
        raise SystemExit("--out takes one manifest")
    for path in manifests:
        manifest = json.loads(path.read_text())
        if args.list_files:
            print(json.dumps(list_files(manifest, args.git_dir), indent=2))
            continue
        out = (args.out or DEFAULT_OUT / manifest["name"]).resolve()
        build(manifest, out, args.git_dir)
        print(f"{manifest['name']}: {len(manifest['files'])} files of {manifest['repository']} at "
              f"{manifest['commit'][:12]} -> {out}")
        if args.check:
            cmd = [sys.executable, "-m", "reducer.cli", "check", str(out / "repro.hip")]
            if manifest.get("predicate"):
                cmd += ["--predicate", manifest["predicate"]]
            run = subprocess.run([*cmd, "--", *flags_for(manifest, out)], env={**os.environ, "PYTHONPATH": str(ROOT)})
            failed += run.returncode != 0
    if failed:
        raise SystemExit(f"{failed} input(s) not interesting under `reduce check`")


if __name__ == "__main__":
    main()
