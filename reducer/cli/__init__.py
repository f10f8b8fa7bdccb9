"""The command line: click commands that parse options and hand them to a run (run/), to
`reduce ir`'s pipeline (ir/) or to `reduce explain` (interestingness/tools/explain/), and turn their
errors into messages and exit codes (run/exits.py).

Owns: `reduce` and its subcommands, input/output checks phrased for a terminal, and the options
reference made from the commands (reference.py, docs/options.md).
May import: every other part. Nothing imports cli/.
"""
