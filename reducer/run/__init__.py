"""A run: from a file and a configuration to a result, a report and a bug report, unattended,
resumable after a kill, alone or in a batch.

Owns: the option table (options.py: RunConfig, from which the command line, manifests and resume
overrides are made), the work directory and its files (workdir.py, state.py), progress and
reports, the end-of-run finish (hygiene, clang-format) and the bug report, the exit codes every
command ends with (exits.py), batches of cases (batch.py). session.py wires one run together:
subject (text/), oracle (interestingness/), engine and schedule (engine/), and records what they
report.
May import: engine/, passes/, text/, interestingness/. Not cli/ or ir/.
"""
