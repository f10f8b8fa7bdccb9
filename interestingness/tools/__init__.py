"""The tools beside the oracles, and a run's door to them: `reduce check` (check.py: both sides'
figures of a file, and of the original beside it), `reduce explain` (explain/: which compiler
passes make the difference, and which backend options remove the spill; its __init__ says which
module does which stage), and oracles.py, which builds a run's oracle from its options and runs check and explain
on its result.

May import: oracle/, compiler/, measure/, base/.
"""
