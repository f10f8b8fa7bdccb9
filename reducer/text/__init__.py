"""The file under reduction as text: its parse (text/source.py, tree-sitter), tokens (text/lexer.py), edits
and how they compose (text/edits.py), what a run reduces (text/subject.py: one file or a file set),
flattening project headers into one file, atomic writes, and the values service that answers
the passes' questions about constants with one front-end run (text/values.py; the front end itself
is injected by the run), and about what the kernels reach (text/footprint.py: a clang plugin's
report).

May import: interestingness/ for the file-set bundle format and path flags only. Nothing else of
reducer/.
"""
