"""The search: which candidates to test, in what order, and which to keep. Knows no HIP, no
compiler and no file on disk but its journal: passes propose items (passes/), the evaluator asks an
oracle through the `Oracle` protocol (interestingness/base/verdict.py) and remembers verdicts.

Owns: the engine (engine.py: ddmin over a pass's items, sweeps, replay), the schedule
(schedule.py), confirmations of kept steps (checkpoints.py), the evaluator and its workers
(evaluate.py, pool.py), what is known of verdicts (verdicts.py: memory, the run's journal.py, the
shared cache.py), and the limits a search stops at (budget.py, stopping.py).
May import: passes/, text/, and interestingness/'s verdict types. Not run/, ir/ or cli/.
"""
