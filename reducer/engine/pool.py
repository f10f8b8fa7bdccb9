"""Where oracle calls run: in this process, or `jobs` at a time in workers (joblib's loky
processes, threads, or a dask cluster through its client's executor). Calls are futures, so a
caller starts the next call as soon as any one ends: with a batch, a compile error's tenth of a
second waited for its neighbour's two-second build (a third of the README case's core time went
idle that way). Only the mechanism: what to call is the evaluator's."""
from __future__ import annotations

import concurrent.futures as cf
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dask.distributed import Client

IDLE_WORKER_SECONDS = 300  # as joblib's loky backend: workers outlive a pause between passes


class Pool:
    def __init__(self, jobs: int, backend: str = "loky", scheduler: str | None = None):
        self.jobs = jobs
        self.backend = backend
        self.scheduler = scheduler
        self._client: Client | None = None
        self._executor: cf.Executor | None = None  # started at the first call
        self._workers = False  # whether calls go to workers

    def __enter__(self) -> Pool:
        if self.backend == "dask":
            from dask.distributed import Client  # optional dependency: only for cluster runs

            self._client = Client(self.scheduler) if self.scheduler else Client(processes=True)
        self._workers = self._client is not None or self.jobs > 1
        return self

    def __exit__(self, *exc) -> None:
        if exc[0] is not None and not issubclass(exc[0], Exception):  # Ctrl-C, SIGTERM: stop the builds
            self.kill()
        elif self._executor is not None and self.backend != "loky":  # loky's workers are reused
            self._executor.shutdown(wait=True)
        self._executor, self._workers = None, False
        if self._client is not None:
            self._client.close()
            self._client = None

    def _started(self) -> cf.Executor:
        if self._executor is None:
            if self._client is not None:
                self._executor = self._client.get_executor(pure=False)
            elif self.backend == "threading":
                self._executor = cf.ThreadPoolExecutor(self.jobs)
            else:
                from joblib.externals.loky import get_reusable_executor

                self._executor = get_reusable_executor(max_workers=self.jobs, timeout=IDLE_WORKER_SECONDS)
        return self._executor

    @property
    def parallel(self) -> bool:
        """Whether calls may run at once (else each runs here when submitted)."""
        return self._workers

    def submit(self, method: Callable[..., Any], *args: Any) -> cf.Future:
        """`method(*args)` as a future: started in a worker, or run here at once without a pool."""
        if not self._workers:
            done: cf.Future = cf.Future()
            try:
                done.set_result(method(*args))
            except Exception as e:  # noqa: BLE001 - the caller's `result()` raises it, as a worker's would
                done.set_exception(e)
            return done
        return self._started().submit(method, *args)

    @staticmethod
    def wait_any(futures: Iterable[cf.Future]) -> set[cf.Future]:
        """Block until at least one of `futures` has ended; those that have."""
        return cf.wait(list(futures), return_when=cf.FIRST_COMPLETED).done

    def kill(self) -> None:
        """Stop what runs now (a stop request): loky's workers and their compiles are killed,
        queued calls cancelled; a later call starts a fresh executor."""
        executor, self._executor = self._executor, None
        if executor is None:
            return
        if self._client is not None:
            executor.shutdown(wait=False)  # the client's executor cancels its futures
        elif self.backend == "threading":
            executor.shutdown(wait=False, cancel_futures=True)
        else:
            executor.shutdown(wait=False, kill_workers=True)  # type: ignore[call-arg]
