"""`reduce ir`: the LLVM IR fed to codegen, reduced by llvm-reduce against our IR oracle to a lit
test (reduce.py); a verdict server (server.py) lets llvm-reduce's test script reach the run's
evaluator and verdict cache; ir/lit.py writes and checks the test.

May import: engine/ (evaluator, cache), interestingness/. Not passes/, run/ or cli/.
"""
