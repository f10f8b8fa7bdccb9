"""Where oracle calls run: in this process, or `jobs` at a time through joblib (loky's worker
processes, threads) or on a dask cluster. Only the mechanism: what to call is the evaluator's."""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from joblib import Parallel, delayed, parallel_config

if TYPE_CHECKING:
    from dask.distributed import Client


class Pool:
    def __init__(self, jobs: int, backend: str = "loky", scheduler: str | None = None):
        self.jobs = jobs
        self.backend = backend
        self.scheduler = scheduler
        self._client: Client | None = None
        self._parallel: Parallel | None = None

    def __enter__(self) -> Pool:
        if self.backend == "dask":
            from dask.distributed import Client  # optional dependency: only for cluster runs

            self._client = Client(self.scheduler) if self.scheduler else Client(processes=True)
        if self.jobs > 1 or self._client is not None:
            with parallel_config(backend=self.backend):  # the way joblib registers its dask backend
                self._parallel = Parallel(n_jobs=self.jobs)
            self._parallel.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        if self._parallel is not None:
            self._parallel.__exit__(*exc)
            self._parallel = None
        if self._client is not None:
            self._client.close()
            self._client = None

    @property
    def parallel(self) -> bool:
        """Whether calls may run at once (else they run one by one, here)."""
        return self._parallel is not None

    def map(self, method: Callable[..., Any], calls: list[tuple]) -> list:
        """`method` on each argument tuple: in this process when there is no pool, or a single
        call without a cluster to send it to; else through the pool."""
        if self._parallel is None or (len(calls) == 1 and self._client is None):
            return [method(*args) for args in calls]
        return list(self._parallel(delayed(method)(*args) for args in calls))
