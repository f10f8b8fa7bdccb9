"""The oracles: what a candidate's builds mean. The spill differential (spill.py: target kernels,
the predicate on both sides, and the guards: the UB guard with its sanitizer checks (ubsan.py),
the init and loop guards); a user's test script (script.py); `reduce ir`'s oracle on LLVM IR
through llc (ir.py, its register-budget guard ir_budget.py), and the IR it starts from
(precodegen.py).

May import: compiler/, measure/, base/. Not tools/.
"""
