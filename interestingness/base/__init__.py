"""What every oracle and the reducer share: a candidate as bytes (bundle.py: a file set in one
byte string, and the directory an oracle materialises it in), the path options of a clang command
line (path_flags.py), the `Verdict` an oracle returns and the `Oracle` protocol the engine calls
(verdict.py), and the one way an external command is run: own process group, hard timeout, no
shell (process.py).

May import: nothing else of interestingness/ (and nothing of reducer/). The reducer's text, engine,
ir and run parts import it; reducer/text and the engine import nothing else of interestingness/.
"""
