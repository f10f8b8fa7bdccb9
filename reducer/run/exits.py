"""Exit codes of every command, distinct so that scripts and batches can tell why a run did
not reduce (docs/usage.md has the table), and the error that carries one out of a run."""

EXIT_INPUT = 3             # input file missing, unreadable, or output/workdir would be overwritten
EXIT_TEST = 4              # test script or oracle cannot be set up
EXIT_NOT_INTERESTING = 5   # the original is not interesting
EXIT_ORIGINAL_TIMEOUT = 6  # the test times out on the original
EXIT_BUDGET = 7            # stopped by --time-budget or --max-tests (resumable)
EXIT_BATCH_FAILED = 8      # a batch finished, but not every case did
EXIT_UNSTABLE = 9          # the test gives different verdicts on the same file
EXIT_IO = 10               # the run's files cannot be written (disk full); the best file is intact
EXIT_NOT_IR = 11           # `reduce ir`: the input is neither LLVM bitcode nor textual IR
EXIT_WRONG_TARGET = 12     # `reduce ir`: the module is for another target than AMDGPU
EXIT_LLC_REJECTS = 13      # `reduce ir`: llc rejects the module
EXIT_INTERRUPTED = 130     # Ctrl-C or SIGTERM (resumable)


class RunError(Exception):
    def __init__(self, message: str, code: int):
        super().__init__(message)
        self.code = code
