"""The bug report a run ends with: WORKDIR/bundle/, a directory a compiler engineer can copy to
any machine with the same clang and run.

  FILE          the result (for a file set: its files, at their paths)
  include/      the headers it still reads that are neither system nor ROCm headers: the fallback
                shim's parts it uses, and project headers a run did not flatten
  repro.sh      builds both sides with clang alone (its own lld does the LTO), each as the run's
                sides give it (interestingness/compiler/sides.py: mode, own flags, own compiler), reads
                every figure from the assembly with awk, prints the table and the verdict;
                `CLANG=... ./repro.sh` (a side with a compiler of its own: CLANG_<NAME>=...)
  README.md     the differential first (the figures of the result, and of the original it was
                reduced from), then the commands and the toolchain
  EXPLAIN.md    `reduce explain` of the result, with explain.json and dumps/ (the run writes them
                after this module, its builds written as `by_hand` gives them)

Paths are relative to the directory; no file names a path of the machine the run was on.
repro.sh evaluates the run's predicate itself (the original's figures it reads as numbers), so
what it prints is what `reduce check --against ORIGINAL` says of the result.
"""
from __future__ import annotations

import os
import shlex
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from interestingness.base.path_flags import path_flags
from interestingness.compiler.hip_headers import SHIM_DIR
from interestingness.compiler.sides import DEFAULT_SIDES, Side
from interestingness.measure.metrics import METRICS
from interestingness.measure.predicates import Predicate
from interestingness.tools.explain.stages import ByHand

from ..text.files import atomic_write
from .workdir import WorkDir

BUNDLE_DIR = "bundle"
EXPLANATION = ("EXPLAIN.md", "explain.json", "dumps")  # what the run's `reduce explain` adds


def write(wd: WorkDir, result_report: dict[str, Any], files: list[tuple[str, bytes]]) -> Path:
    """(Re)write WORKDIR/bundle/ for the result `files` ((relative path, text), main file first),
    measured by `result_report` (`reduce check --json` of it)."""
    out = wd.path / BUNDLE_DIR
    kept = _set_explanation_aside(out, files)
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(mode=0o755)
    if kept is not None:
        for name in EXPLANATION:
            if (kept / name).exists():
                shutil.move(kept / name, out / name)
        shutil.rmtree(kept)
    for name, text in files:
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        (out / name).write_bytes(text)
    copied = _copy_headers(out, result_report)
    main = files[0][0]
    flags = _flags(result_report)
    sides = _sides(result_report)
    predicate = Predicate(result_report["predicate"], (sides[0].name, sides[1].name))
    # each kernel's predicate reads its original's figures; without an original, its own
    kernels = [(k["name"], predicate.bind({s.name: k["original"][s.name] for s in sides}) if k.get("original")
                else predicate) for k in result_report["kernels"] if k["selected"]]
    script = _script(main, flags, kernels, sides)
    atomic_write(out / "repro.sh", script.encode())
    (out / "repro.sh").chmod(0o755)
    atomic_write(out / "README.md", _readme(main, flags, result_report, copied, sides).encode())
    return out


def _set_explanation_aside(out: Path, files: list[tuple[str, bytes]]) -> Path | None:
    """An explanation of the very files being written again survives the rewrite (`reduce bundle`
    or `reduce resume` of a finished run): it took minutes of builds. One of other files is stale
    and goes with them."""
    if not (out / "EXPLAIN.md").is_file() or any(
            not (out / name).is_file() or (out / name).read_bytes() != text for name, text in files):
        return None
    aside = out.with_name(out.name + ".explanation")
    shutil.rmtree(aside, ignore_errors=True)
    aside.mkdir()
    for name in EXPLANATION:
        if (out / name).exists():
            shutil.move(out / name, aside / name)
    return aside


def by_hand(report: dict[str, Any], files: list[tuple[str, bytes]]) -> ByHand:
    """How the bundle's EXPLAIN.md names the result and writes its builds: the bundle's own file,
    clang++ and flags relative to the bundle, as repro.sh builds it (no path of this machine)."""
    main, flags = files[0][0], _flags(report)

    def line(side: Side, extra: Sequence[str]) -> str:
        clang = f'"${{CLANG_{side.name.upper()}:-{side.clang}}}"' if side.clang else "clang++"
        return f"{clang} {shlex.join(_commands(main, flags, (side,), extra)[side.name])}"
    return ByHand(main, line, "from the bug report's directory, with clang++ the toolchain above"
                  + (" (a side with a compiler of its own: CLANG_<NAME>, as repro.sh)"
                     if any(s.clang for s in _sides(report)) else ""))


def _flags(report: dict[str, Any]) -> list[str]:
    """The result's flags in the bundle: the HIP headers' mode, the user's portable flags, and
    include/ when the bundle has headers there."""
    return [*report["hip_headers"]["flags"], *_portable(report["flags"]),
            *(["-I", "include"] if _headers(report) else [])]


def _headers(report: dict[str, Any]) -> list[tuple[str, str]]:
    """(header, its path under include/) for what the result reads that a reviewer lacks: the
    shim's headers and the user's own (placed relative to the include directory they were found in)."""
    out = []
    for h in report["headers"]:
        if h["from"] == "shim":
            out.append((h["header"], os.path.relpath(h["header"], SHIM_DIR)))
        elif h["from"] == "yours":
            out.append((h["header"], _relative_to_user_dir(h["header"], report["flags"])))
    return out


def _copy_headers(out: Path, report: dict[str, Any]) -> list[str]:
    """Copy the headers a reviewer lacks into include/ (`_headers`); their paths in the bundle."""
    copied = []
    for header, rel in _headers(report):
        target = out / "include" / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(header, target)
        copied.append(f"include/{rel}")
    return copied


def _relative_to_user_dir(header: str, flags: list[str]) -> str:
    dirs = [f.value for f in path_flags(flags)
            if f.value and os.path.realpath(header).startswith(os.path.realpath(f.value) + os.sep)]
    base = max(dirs, key=len) if dirs else os.path.dirname(header)
    return os.path.relpath(os.path.realpath(header), os.path.realpath(base))


def _portable(flags: list[str]) -> list[str]:
    """The user's flags without include directories given by absolute paths (they name the
    machine the run was on; what the result still reads from them is copied into include/)."""
    out: list[str] = []
    for f in path_flags(flags):
        if f.value is None:
            out += f.tokens
        elif not os.path.isabs(f.value):
            assert f.option is not None  # (a path comes with its option)
            out += [f.option, f.value]
    return out


def _sides(report: dict[str, Any]) -> tuple[Side, Side]:
    """The run's two builds, from its check report (one from before sides were data: the default pair)."""
    if not report.get("sides"):
        return DEFAULT_SIDES
    a, b = (Side(s["name"], s["lto"], tuple(s["flags"]), s["clang"]) for s in report["sides"])
    return a, b


def _commands(main: str, flags: list[str], sides: Sequence[Side] = DEFAULT_SIDES,
              extra: Sequence[str] = ()) -> dict[str, list[str]]:
    """Each side's build of `main` (clang's arguments), `extra` options after the flags; its
    assembly goes to NAME.s (LTO: NAME.s.lto*.s)."""
    base = ["-x", "hip", *flags]
    out: dict[str, list[str]] = {}
    for s in sides:
        mode = ["-foffload-lto=full"] if s.lto else ["-fno-offload-lto"]
        emit = ["-c", "-Xoffload-linker", "--lto-emit-asm"] if s.lto else ["-S"]
        out[s.name] = [*base, *mode, *s.flags, "--offload-device-only", "--no-gpu-bundle-output", *extra, *emit,
                       "-o", f"{s.name}.s", main]
    return out


def _clang(side: Side) -> str:
    """The shell word that names a side's compiler: $CLANG, or CLANG_<NAME> for a side with its own."""
    return f'"$CLANG_{side.name.upper()}"' if side.clang else '"$CLANG"'


def _script(main: str, flags: list[str], kernels: list[tuple[str, Predicate]],
            sides: tuple[Side, Side] = DEFAULT_SIDES) -> str:
    """The script, for each kernel with its predicate (the original's figures bound)."""
    cmds = _commands(main, flags, sides)
    a, b = sides
    own = "".join(f"CLANG_{s.name.upper()}=${{CLANG_{s.name.upper()}:-{shlex.quote(s.clang)}}}\n"
                  for s in sides if s.clang)
    what = "with and without full offload LTO" if sides == DEFAULT_SIDES else \
        f"as {a.name} ({a.spec()}) and as {b.name} ({b.spec()})"
    builds = "\n".join(f"{_clang(s)} {shlex.join(cmds[s.name])} || exit 2" for s in sides)
    asm = {s.name: f"{s.name}.s.lto*.s" if s.lto else f"{s.name}.s" for s in sides}
    names = " ".join(m.name for m in METRICS)
    cases = "\n".join(f"    {shlex.quote(k)}) PREDICATE={shlex.quote(p.shown())}; EXPR={shlex.quote(p.awk())};;"
                      for k, p in kernels)
    return f"""#!/usr/bin/env bash
# Builds {main} {what} (device code only, gfx950), reads each target
# kernel's figures from the assembly and prints them with the verdict. Needs clang++ with the
# AMDGPU target and its lld; CLANG=/path/to/clang++ picks one (default: clang++ on PATH), and
# CLANG_<NAME> the compiler of a side that has one of its own.
# Exit status: 0 when the predicate holds for every target kernel, 1 when not, 2 when a build fails.
set -uo pipefail
cd "$(dirname "$0")"
CLANG=${{CLANG:-clang++}}
{own}out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cp -r . "$out/src"
cd "$out/src"
{builds}
METRICS_AWK={shlex.quote(METRICS_AWK)}
status=0
for kernel in {" ".join(shlex.quote(k) for k, _ in kernels)}; do
  case "$kernel" in  # the predicate, with the figures of the original the result was reduced from
{cases}
  esac
  lto=$(awk -v K="$kernel" "$METRICS_AWK" {asm[a.name]})
  nolto=$(awk -v K="$kernel" "$METRICS_AWK" {asm[b.name]})
  echo "kernel $kernel"
  awk -v lto="$lto" -v nolto="$nolto" -v names={shlex.quote(names)} 'BEGIN {{
    n = split(names, m, " "); split(lto, a, " "); split(nolto, b, " ")
    printf "  %-16s %8s | %s\\n", "", "{a.name}", "{b.name}"
    for (i = 1; i <= n; i++) printf "  %-16s %8s | %s\\n", m[i], a[i], b[i]
  }}'
  if awk -v lto="$lto" -v nolto="$nolto" -v names={shlex.quote(names)} 'BEGIN {{
    n = split(names, m, " "); split(lto, a, " "); split(nolto, b, " ")
    for (i = 1; i <= n; i++) {{ L[m[i]] = a[i] + 0; N[m[i]] = b[i] + 0 }}
{_assignments(a.name, b.name)}
    '"exit !($EXPR) }}"; then echo "  -> interesting"; else echo "  -> not interesting"; status=1; fi
  echo "  predicate: $PREDICATE"
done
[ $status = 0 ] && echo "verdict: INTERESTING" || echo "verdict: not interesting"
exit $status
"""


def _assignments(first: str, second: str) -> str:
    """The predicate's awk variables, SIDE_METRIC, from the two sides' figures (L and N)."""
    return "\n".join(f"    {first}_{m.name} = L[\"{m.name}\"]; {second}_{m.name} = N[\"{m.name}\"]" for m in METRICS)


# One kernel's figures from AMDGPU assembly, in METRICS order, "-" where the asm does not say;
# the same reading as interestingness/measure/metrics.py, in awk: every function's counts, its calls
# (the symbol whose address the called SGPR pair holds, and the callees of its `.set F.num_vgpr`),
# then the sums over the functions the kernel reaches, a call resolved in the caller's file first.
METRICS_AWK = r"""
function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }
function sreg(op) { op = trim(op); if (op !~ /^s(\[[0-9]+:[0-9]+\]|[0-9]+)$/) return ""
  gsub(/[^0-9:]/, "", op); HI = op; sub(/.*:/, "", HI); sub(/:.*/, "", op); return op + 0 }
function call(t) { ncall[fn]++; callt[fn, ncall[fn]] = t }
function endfn(   i, j) {
  for (i = 1; i <= n; i++) if (spill[i]) for (j = i; j <= n; j++)
    if (mn[j] ~ /^s_c?branch/ && (target[j] in label) && label[target[j]] < i && label[target[j]] <= j) { lsp[fn]++; break }
  split("", label); split("", held); split("", got); body = 0
}
function lookup(t, file) {
  if ((file, t) in defined) return file SUBSEP t
  if ((t in globfile) && ((globfile[t], t) in defined)) return globfile[t] SUBSEP t
  return ""
}
function resolve(t, file,   r) { r = lookup(t, file); if (r == "" && t ~ /^\.L/) r = lookup(substr(t, 3), file); return r }
function reach(g) { if (g != "" && !(g in seen)) { seen[g] = 1; q[++qn] = g } }
FNR == 1 { if (body) endfn(); meta = 0; info = 0 }
/^[ \t]*\.amdgpu_metadata/ { meta = 1; next }
/^[ \t]*\.end_amdgpu_metadata/ { meta = 0; next }
meta {
  if (match($0, /^  [ -] \.[A-Za-z0-9_]+:/)) {
    if (substr($0, 3, 1) == "-") item++
    key = substr($0, 6, RLENGTH - 6); val = trim(substr($0, RLENGTH + 1)); gsub(/['"]/, "", val)
    M[item, key] = val
    if (key == "name" && val == K) mine = item
  }
  next
}
body && /^\.Lfunc_end[0-9]+:/ { endfn(); next }
body {
  code = $0; comment = ""
  c = index(code, ";"); if (c) { comment = substr(code, c + 1); code = substr(code, 1, c - 1) }
  code = trim(code)
  if (code ~ /^"?[^ \t":;]+"?:$/) { code = substr(code, 1, length(code) - 1); gsub(/"/, "", code); label[code] = n; next }
  if (code == "" || substr(code, 1, 1) == ".") next
  n++; split(code, f, /[ \t]+/); mn[n] = f[1]; ins[fn]++
  ops = trim(substr(code, length(f[1]) + 1)); split("", o); split(ops, o, ","); target[n] = trim(o[1])
  spill[n] = (comment ~ /Folded Spill|Folded Reload/); sp[fn] += spill[n]
  if (match(comment, /[0-9]+-byte Folded Spill/)) dw[fn] += int((substr(comment, RSTART) + 0) / 4)
  if (mn[n] ~ /^scratch_/) scratch[fn]++
  if (mn[n] ~ /^v_mfma/) mfma[fn]++
  if (mn[n] == "s_waitcnt" && ops ~ /vmcnt\(0\)/) vm0[fn]++
  if (mn[n] == "s_call_b64") { t = trim(o[2]); sub(/@.*/, "", t); sub(/\+.*/, "", t); gsub(/"/, "", t); call(t) }
  else if (mn[n] == "s_swappc_b64") { r = sreg(o[2]); call((r != "" && (r in held) && !got[r]) ? held[r] : "") }
  else if (mn[n] == "s_setpc_b64") { r = sreg(o[1]); if (r != "" && (r in held) && !got[r]) call(held[r]) }
  else if ((r = sreg(o[1])) != "") {
    hi = HI + 0; s = (2 in o) ? sreg(o[2]) : ""
    if (match(ops, /[^ \t,"@]+"?@(rel32|gotpcrel32|abs32)@lo/)) {
      a = substr(ops, RSTART, RLENGTH); got[r] = (a ~ /@gotpcrel32@lo/); sub(/"?@.*/, "", a); held[r] = a
    } else if (ops ~ /@hi/) { }
    else if (mn[n] ~ /^s_load_dwordx2/ && s != "" && (s in held) && got[s]) { held[r] = held[s]; got[r] = 0 }
    else if (mn[n] ~ /^s_mov_b/ && s != "" && (s in held)) { held[r] = held[s]; got[r] = got[s] }
    else for (i = r; i <= hi; i++) { delete held[i]; delete got[i] }
  }
  next
}
/^[ \t]*\.type[ \t]/ && /@function/ { t = $2; sub(/,.*/, "", t); gsub(/"/, "", t); typed[FILENAME, t] = 1 }
/^[ \t]*\.(globl|weak)[ \t]/ { t = $2; gsub(/"/, "", t); globfile[t] = FILENAME }
/^[ \t]*\.set[ \t]/ && /\.num_vgpr[ \t]*,/ {
  t = $2; sub(/\.num_vgpr,?$/, "", t); gsub(/"/, "", t); sub(/^\.L/, "", t); rest = $0; sub(/^[^,]*,/, "", rest)
  while (match(rest, /[^ \t,()"]+\.num_vgpr/)) {
    key = FILENAME SUBSEP t; setc[key, ++nset[key]] = substr(rest, RSTART, RLENGTH - 9); rest = substr(rest, RSTART + RLENGTH)
  }
}
/^"?[^ \t.;"][^ \t:;"]*"?:/ { name = $0; sub(/:.*/, "", name); gsub(/"/, "", name); last = name
  if ((FILENAME, name) in typed || name == K) { fn = FILENAME SUBSEP name; defined[fn] = 1; body = 1; n = 0
    if (name == K && kfile == "") kfile = FILENAME }
  next }
/^; Kernel info:/ { info = (last == K); next }
info && /^;/ { if (match($0, /^; NumVgprs: [0-9]+/)) vgpr = substr($0, 13) + 0
               if (match($0, /^; Occupancy: [0-9]+/)) occ = substr($0, 14) + 0; next }
{ info = 0 }
function v(key) { return ((mine, key) in M) ? M[mine, key] + 0 : "-" }
END {
  if (body) endfn()
  if (kfile != "") reach(kfile SUBSEP K)
  for (h = 1; h <= qn; h++) {
    g = q[h]; split(g, part, SUBSEP); dws += (h > 1) ? dw[g] : 0
    TS += scratch[g]; SP += sp[g]; LS += lsp[g]; MF += mfma[g]; VM += vm0[g]; IN += ins[g]; CA += ncall[g]
    for (i = 1; i <= ncall[g]; i++) if (callt[g, i] != "") reach(resolve(callt[g, i], part[1]))
    for (i = 1; i <= nset[g]; i++) reach(resolve(setc[g, i], part[1]))
  }
  if (vgpr == "" && v("agpr_count") == 0) vgpr = v("vgpr_count")
  vs = v("vgpr_spill_count"); if (vs != "-") vs += dws
  printf "%d %d %d %d %d %s %s %s %s %s %s %s %d %d %s %s\n", TS, SP, LS, MF, VM, (vgpr == "" ? "-" : vgpr),
    v("agpr_count"), v("vgpr_count"), v("sgpr_count"), v("private_segment_fixed_size"), vs,
    (qn > 1 ? "-" : v("sgpr_spill_count")), IN, CA, (occ == "" ? "-" : occ), v("max_flat_workgroup_size")
}
"""  # noqa: E501 (awk lines of repro.sh, kept as they are)


def _calls(kernel: dict[str, Any], sides: tuple[Side, Side] = DEFAULT_SIDES) -> list[str]:
    """Per build in which the kernel calls functions: which, with the spill code and `v_mfma` each
    holds (the figures above are summed over them)."""
    lines = []
    builds = ("With full offload LTO", "Without LTO") if sides == DEFAULT_SIDES else (f"In {s.name}" for s in sides)
    for side, build in zip((s.name for s in sides), builds):
        graph = (kernel.get("call_graph") or {}).get(side)
        if not graph:
            continue
        own = [f"({f['figures'].get('spill_ops')} spill instructions, {f['figures'].get('mfma')} `v_mfma`)"
               for f in graph["functions"]]
        called = [f"`{f['demangled']}` {figures}" for f, figures in zip(graph["functions"][1:], own[1:])]
        lines += ["", f"{build} the kernel calls {len(called)} function(s), and the figures are summed over "
                      f"them: the kernel itself {own[0]}, " + ", ".join(called) + "."]
        if graph["undefined"] or graph["indirect"]:
            lines.append(f"Not counted: {graph['indirect']} indirect call(s), calls to "
                         f"{', '.join(graph['undefined']) or 'no undefined symbol'}.")
    return lines


def _readme(main: str, flags: list[str], report: dict[str, Any], copied: list[str],
            sides: tuple[Side, Side] = DEFAULT_SIDES) -> str:
    """The differential first (per target kernel: the figures of both builds, and of the original
    the result was reduced from), then the commands and the toolchain. No path of the machine
    the run was on: the commands are relative to the bundle, the clang is `clang++`."""
    tc = report["toolchain"]
    cmds = _commands(main, flags, sides)
    headers = ("The fallback HIP headers and project headers it still reads are in `include/`: "
               + ", ".join(f"`{c}`" for c in copied) + "." if copied else "It reads no header outside the system's"
               + (" and ROCm's." if report["hip_headers"]["mode"] == "rocm" else "."))
    default = sides == DEFAULT_SIDES
    lines = [f"# Spill only under full offload LTO: `{main}`" if default else
             f"# Spill only in `{sides[0].name}`, not in `{sides[1].name}`: `{main}`", ""]
    if not default:
        lines += ["The two builds (`reduce --side`):", "", *(f"- `{s.spec()}`" for s in sides), ""]
    for k in (k for k in report["kernels"] if k["selected"]):
        lines += [*_differential(k, sides), ""]
    lines += [
        "## Reproduce", "",
        "The two device-only builds, from this directory:", "",
        "```sh", *(f"{'clang++' if not s.clang else s.clang} {shlex.join(cmds[s.name])}" for s in sides), "```", "",
        "`./repro.sh` (or `CLANG=/path/to/clang++ ./repro.sh`) runs both in a temporary directory, prints "
        "every figure of the target kernel(s) and the verdict, and exits 0 when the predicate holds. " + headers, "",
        f"Toolchain: {tc['version']}, commit {tc['commit'] or 'unknown'}; full offload LTO by default: "
        f"{'yes' if tc['affected'] else 'no'}.", "",
    ]
    return "\n".join(lines)


def _differential(kernel: dict[str, Any], sides: tuple[Side, Side] = DEFAULT_SIDES) -> list[str]:
    """One kernel's figures as a Markdown table: both builds of the result, and of its original
    when the report has it; the rows that differ between the builds first."""
    a, b = sides
    lto, nolto = kernel[a.name] or {}, kernel[b.name] or {}
    original = kernel.get("original") or {}
    default = sides == DEFAULT_SIDES
    with_, without = ("with full offload LTO", "without") if default else (f"in {a.name}", f"in {b.name}")
    summary = (f"`{kernel['demangled']}`: {lto.get('vgpr_spills')} VGPR(s) spilled {with_} "
               f"({lto.get('vgpr_total')} VGPRs, {lto.get('spill_ops')} spill instructions), "
               f"{nolto.get('vgpr_spills')} {without} ({nolto.get('vgpr_total')} VGPRs); "
               f"{lto.get('mfma')} and {nolto.get('mfma')} `v_mfma`.")
    head = "| | `-foffload-lto=full` | `-fno-offload-lto` |" if default else f"| | `{a.name}` | `{b.name}` |"
    rule = "|---|---:|---:|"
    if original:
        head += " original, LTO | original, no LTO |" if default else f" original, {a.name} | original, {b.name} |"
        rule += "---:|---:|"
    rows = sorted(METRICS, key=lambda m: lto.get(m.name) == nolto.get(m.name))  # the differences first
    lines = [summary, "", head, rule]
    for m in rows:
        cells = [lto.get(m.name), nolto.get(m.name)]
        if original:
            cells += [(original.get(s.name) or {}).get(m.name) for s in sides]
        label = f"**{m.label}**" if cells[0] != cells[1] else m.label
        lines.append(f"| {label} | " + " | ".join("-" if v is None else str(v) for v in cells) + " |")
    lines += _calls(kernel, sides)
    verdict = "holds" if kernel["interesting"] else f"does not hold ({kernel['reason']})"
    lines += ["", f"Predicate (`repro.sh` checks it): `{kernel['predicate']}`: {verdict}."]
    if kernel.get("ub_guard_violation") == "":
        lines.append("With clang's sanitizer checks in trap mode (`-Xclang -fsanitize=...`), its optimised IR "
                     "has no undefined behaviour its original's has not.")
    return lines
