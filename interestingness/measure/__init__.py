"""What a build measures: per-kernel figures read from AMDGPU assembly, in the one table of every
metric (metrics.py), and the predicate language over them (predicates.py), three-valued so that
an oracle can decide before both sides are built.

May import: base/ (process.py, to demangle). No compile command and no oracle: a metric is read
from whatever assembly it is given.
"""
