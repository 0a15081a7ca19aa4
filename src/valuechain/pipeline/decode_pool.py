"""The workers that decode a large source's parts while the importing process commits."""

from __future__ import annotations

from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from multiprocessing.connection import Connection

from valuechain.ingest.source.decoded import DecodeOptions
from valuechain.pipeline.lifeline import exit_with_parent
from valuechain.pipeline.worker_context import worker_context

# the module a decode worker runs (``decode_part``): all it needs, none of the store's
PART_DECODER = "valuechain.ingest.source.parts"


class DecodePool:
    """Workers that decode the parts of large sources while this process commits.

    Threads of this process when the native path decodes (``threads``): Arrow's reader and
    kernels release the GIL, so two threads keep both cores busy and hand their tables over
    without copying. Otherwise processes, as follows.

    Started on first use (only a source larger than one batch needs it) from valuechain's own
    modules, never the caller's script (`pipeline.worker_context`: no ``if __name__ ==
    "__main__":`` guard needed), and shut down at the end of the import call.
    ``DecodeOptions(workers=0)`` decodes in-process instead.

    Workers exit with this process, however it ends (SIGKILL included): each watches the read
    end of a pipe whose only write end this process holds, and the kernel closes it when the
    process dies. A pipe rather than Linux's ``PR_SET_PDEATHSIG``: under ``forkserver`` a
    worker's parent is the fork server, not the importing process, and a pipe works on every
    platform.
    """

    def __init__(self, workers: int, *, threads: bool = False) -> None:
        self.workers = workers
        self.threads = threads  # the native path's workers: threads of this process
        self._executor: Executor | None = None
        self._lifeline: Connection | None = None  # the write end; never written, only held

    def executor_for(self, size: int | None, options: DecodeOptions) -> Executor | None:
        """The workers for a source of ``size`` bytes (None: a stream of unknown size)."""
        if self.workers < 1 or (size is not None and size <= options.batch_bytes):
            return None
        if self._executor is None and self.threads:
            self._executor = ThreadPoolExecutor(self.workers, thread_name_prefix="decode")
        if self._executor is None:
            # the fork server loads the decoder once; each worker it forks starts with it
            # (ignored if the server already runs: a derive step started it first)
            context = worker_context([PART_DECODER])
            watched, self._lifeline = context.Pipe(duplex=False)
            self._executor = ProcessPoolExecutor(
                self.workers,
                mp_context=context,
                initializer=exit_with_parent,
                initargs=(watched,),
            )
        return self._executor

    def __enter__(self) -> DecodePool:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._executor is not None:
            self._executor.shutdown(cancel_futures=True)
            self._executor = None
        if self._lifeline is not None:
            self._lifeline.close()
            self._lifeline = None
