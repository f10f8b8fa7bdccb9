#!/usr/bin/env bash
# Builds repro.hip with and without full offload LTO (device code only, gfx950), reads each target
# kernel's figures from the assembly and prints them with the verdict. Needs clang++ with the
# AMDGPU target and its lld; CLANG=/path/to/clang++ picks one (default: clang++ on PATH).
# Exit status: 0 when the predicate holds for every target kernel, 1 when not, 2 when a build fails.
set -uo pipefail
cd "$(dirname "$0")"
CLANG=${CLANG:-clang++}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cp -r . "$out/src"
cd "$out/src"
"$CLANG" -x hip -nogpuinc -nogpulib --offload-arch=gfx950 -O3 -std=gnu++20 -I include -foffload-lto=full --offload-device-only --no-gpu-bundle-output -c -Xoffload-linker --lto-emit-asm -o lto.s repro.hip || exit 2
"$CLANG" -x hip -nogpuinc -nogpulib --offload-arch=gfx950 -O3 -std=gnu++20 -I include -fno-offload-lto --offload-device-only --no-gpu-bundle-output -S -o nolto.s repro.hip || exit 2
PREDICATE='lto.vgpr_spills > 0 and lto.spill_ops > 0 and nolto.spill_ops * 4 <= lto.spill_ops and nolto.vgpr_spills * 4 <= lto.vgpr_spills and nolto.scratch_size * 4 <= lto.scratch_size and lto.mfma > 0 and lto.mfma == nolto.mfma'
METRICS_AWK='
function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }
/^[ \t]*\.amdgpu_metadata/ { meta = 1; next }
/^[ \t]*\.end_amdgpu_metadata/ { meta = 0; next }
meta {
  if (match($0, /^  [ -] \.[A-Za-z0-9_]+:/)) {
    if (substr($0, 3, 1) == "-") item++
    key = substr($0, 6, RLENGTH - 6); val = trim(substr($0, RLENGTH + 1)); gsub(/['"'"'"]/, "", val)
    M[item, key] = val
    if (key == "name" && val == K) mine = item
  }
  next
}
body && /^\.Lfunc_end[0-9]+:/ { body = 0; next }
body {
  code = $0; comment = ""
  c = index(code, ";"); if (c) { comment = substr(code, c + 1); code = substr(code, 1, c - 1) }
  code = trim(code)
  if (code ~ /^"?[^ \t":;]+"?:$/) { code = substr(code, 1, length(code) - 1); gsub(/"/, "", code); label[code] = n; next }
  if (code == "" || substr(code, 1, 1) == ".") next
  n++; split(code, f, /[ \t]+/); mn[n] = f[1]
  ops = trim(substr(code, length(f[1]) + 1)); split(ops, o, ","); target[n] = trim(o[1])
  spill[n] = (comment ~ /Folded Spill|Folded Reload/)
  if (mn[n] ~ /^scratch_/) scratch++
  if (mn[n] ~ /^v_mfma/) mfma++
  if (mn[n] == "s_waitcnt" && ops ~ /vmcnt\(0\)/) vm0++
  next
}
/^"?[^ \t.;"][^ \t:;"]*"?:/ { name = $0; sub(/:.*/, "", name); gsub(/"/, "", name); last = name; if (name == K) body = 1; next }
/^; Kernel info:/ { info = (last == K); next }
info && /^;/ { if (match($0, /^; NumVgprs: [0-9]+/)) vgpr = substr($0, 13) + 0
               if (match($0, /^; Occupancy: [0-9]+/)) occ = substr($0, 14) + 0; next }
{ info = 0 }
function v(key) { return ((mine, key) in M) ? M[mine, key] + 0 : "-" }
END {
  for (i = 1; i <= n; i++) { sp += spill[i]
    if (spill[i]) for (j = i; j <= n; j++)
      if (mn[j] ~ /^s_c?branch/ && (target[j] in label) && label[target[j]] < i && label[target[j]] <= j) { lsp++; break } }
  if (vgpr == "" && v("agpr_count") == 0) vgpr = v("vgpr_count")
  printf "%d %d %d %d %d %s %s %s %s %s %s %s %d %s\n", scratch, sp, lsp, mfma, vm0, (vgpr == "" ? "-" : vgpr),
    v("agpr_count"), v("vgpr_count"), v("sgpr_count"), v("private_segment_fixed_size"), v("vgpr_spill_count"),
    v("sgpr_spill_count"), n, (occ == "" ? "-" : occ)
}
'
status=0
for kernel in _Z12wgrad_kernel10ConvParamsPf; do
  lto=$(awk -v K="$kernel" "$METRICS_AWK" lto.s.lto*.s)
  nolto=$(awk -v K="$kernel" "$METRICS_AWK" nolto.s)
  echo "kernel $kernel"
  awk -v lto="$lto" -v nolto="$nolto" -v names='scratch_ops spill_ops loop_spill_ops mfma vmcnt0 vgpr agpr vgpr_total sgpr scratch_size vgpr_spills sgpr_spills instructions occupancy' 'BEGIN {
    n = split(names, m, " "); split(lto, a, " "); split(nolto, b, " ")
    printf "  %-16s %8s | %s\n", "", "lto", "nolto"
    for (i = 1; i <= n; i++) printf "  %-16s %8s | %s\n", m[i], a[i], b[i]
  }'
  if awk -v lto="$lto" -v nolto="$nolto" -v names='scratch_ops spill_ops loop_spill_ops mfma vmcnt0 vgpr agpr vgpr_total sgpr scratch_size vgpr_spills sgpr_spills instructions occupancy' 'BEGIN {
    n = split(names, m, " "); split(lto, a, " "); split(nolto, b, " ")
    for (i = 1; i <= n; i++) { L[m[i]] = a[i] + 0; N[m[i]] = b[i] + 0 }
    lto_scratch_ops = L["scratch_ops"]; nolto_scratch_ops = N["scratch_ops"]
    lto_spill_ops = L["spill_ops"]; nolto_spill_ops = N["spill_ops"]
    lto_loop_spill_ops = L["loop_spill_ops"]; nolto_loop_spill_ops = N["loop_spill_ops"]
    lto_mfma = L["mfma"]; nolto_mfma = N["mfma"]
    lto_vmcnt0 = L["vmcnt0"]; nolto_vmcnt0 = N["vmcnt0"]
    lto_vgpr = L["vgpr"]; nolto_vgpr = N["vgpr"]
    lto_agpr = L["agpr"]; nolto_agpr = N["agpr"]
    lto_vgpr_total = L["vgpr_total"]; nolto_vgpr_total = N["vgpr_total"]
    lto_sgpr = L["sgpr"]; nolto_sgpr = N["sgpr"]
    lto_scratch_size = L["scratch_size"]; nolto_scratch_size = N["scratch_size"]
    lto_vgpr_spills = L["vgpr_spills"]; nolto_vgpr_spills = N["vgpr_spills"]
    lto_sgpr_spills = L["sgpr_spills"]; nolto_sgpr_spills = N["sgpr_spills"]
    lto_instructions = L["instructions"]; nolto_instructions = N["instructions"]
    lto_occupancy = L["occupancy"]; nolto_occupancy = N["occupancy"]
    exit !(((lto_vgpr_spills > 0) && (lto_spill_ops > 0) && ((nolto_spill_ops * 4) <= lto_spill_ops) && ((nolto_vgpr_spills * 4) <= lto_vgpr_spills) && ((nolto_scratch_size * 4) <= lto_scratch_size) && (lto_mfma > 0) && (lto_mfma == nolto_mfma)))
  }'; then echo "  -> interesting"; else echo "  -> not interesting"; status=1; fi
done
echo "predicate: $PREDICATE"
[ $status = 0 ] && echo "verdict: INTERESTING" || echo "verdict: not interesting"
exit $status
