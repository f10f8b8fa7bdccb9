#!/bin/bash
# C-Reduce-style interestingness test for case.cpp (no arguments; run in the directory that
# holds the candidate case.cpp). Exit 0 iff g++ still rejects the file with the original
# diagnostic: the wire encoder has no to_wire() overload for metrics::Timestamp.
set -u
CXX="${CXX:-g++}"
[ -f case.cpp ] || exit 1
# LC_ALL=C: ASCII quotes in diagnostics; timeout: a candidate must never hang the reducer.
out="$(LC_ALL=C timeout 20 "$CXX" -std=c++17 -fsyntax-only case.cpp 2>&1)"
rc=$?
[ "$rc" -eq 124 ] && exit 1          # timed out
[ "$rc" -ge 128 ] && exit 1          # compiler crashed / killed: not our bug
[ "$rc" -ne 0 ] || exit 1            # must still be rejected
printf '%s\n' "$out" | grep -qE "error: no matching function for call to 'to_wire\([^)]*Timestamp[^)]*\)'" || exit 1
exit 0
