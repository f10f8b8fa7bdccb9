"""The tools beside the oracles, and a run's door to them: `reduce check` (check.py: both sides'
figures of a file, and of the original beside it), `reduce explain` (explain.py: which compiler
passes make the difference; knobs.py and its table knobs.toml: which backend options remove the
spill), and oracles.py, which builds a run's oracle from its options and runs check and explain
on its result.

May import: oracle/, compiler/, measure/, base/.
"""
