"""Building a candidate: which two builds a differential compares (sides.py), the clang that
builds them and its identity (toolchain.py), where the HIP headers come from (hip_headers.py, the
fallback shim/), `<hip/hip_runtime.h>` precompiled once (prefix_pch.py), one side built to
assembly, through the driver or from one shared front end (compile.py), what the backends made of
a bitcode, kept (ir_memo.py), and the first error of a compiler's stderr (diagnostics.py).

May import: measure/ (a build's summary, the default predicate a side names), base/. What a build
means, targets and guards, is oracle/'s.
"""
