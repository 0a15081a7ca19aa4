"""Streaming a source's bytes through part decoding (in-process or on workers) and merging."""

from __future__ import annotations

import gc
import hashlib
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Executor, Future
from itertools import chain
from typing import Any, TypeVar

from valuechain.contract.issues import HINTS, Code
from valuechain.ingest.bytes import framing
from valuechain.ingest.bytes.compression import Unpacker
from valuechain.ingest.bytes.items import DocumentRefused
from valuechain.ingest.mcpjam import ENCODING_FLAVOR, SNIFF_BYTES, SdkTranslator, looks_like_sdk
from valuechain.ingest.source.decoded import DecodedSource, DecodeOptions
from valuechain.ingest.source.merge import Batch, SourceMerger
from valuechain.ingest.source.parts import decode_part
from valuechain.ingest.source.records import PartResult, Rejection
from valuechain.ingest.source.sdk_parts import collector_paused, job_bytes, place, sdk_part

# ---------------------------------------------------------------------------- streaming
# Parts decoded ahead of the one being committed, per worker: the writer commits a group of
# ``COMMIT_ROWS`` rows (several parts) at once, and the workers need room for what they decode
# meanwhile. With 3 parts in flight for two workers they waited out each group write: a
# 212 MB NDJSON import took 4.8-4.9 s in-process, with 8 (4 a worker) 4.4-4.6 s, and a 2 GB
# import's peak RSS went from 1,086 to 1,171 MB (groups of 400k rows then; with groups of a
# million, 12 in flight measured no better than 8).
PARTS_AHEAD_PER_WORKER = 4

R = TypeVar("R")  # what a worker's unit of work returns


class SourceStream:
    """Decode one source part by part: iterate for its ``Batch``es, then read ``result``.

    ``chunks`` are the raw bytes (a file read piece by piece); they are hashed, decompressed
    and framed on the fly, so memory holds a few parts, never the source, and the source's
    sha256 and size are those of the very bytes decoded, read once. With an ``executor``
    (a pool) up to ``ahead`` parts are decoded in parallel while the caller commits earlier
    batches; results are consumed strictly in order.

    With ``documents`` (``items.SPANS`` or ``items.ITEMS``), a single document larger than a
    batch is framed as runs of its spans or items (``framing.Items``) and streams as NDJSON
    does; if a run cannot be cut or decoded, iterating raises ``DocumentRefused`` and the
    caller reads the source again as its ``again`` says (in runs of whole items, or whole as
    the reference reads it) — so only a caller that can read the bytes twice asks.
    """

    def __init__(
        self,
        chunks: Iterable[bytes],
        source: str,
        options: DecodeOptions,
        executor: Executor | None = None,
        ahead: int | None = None,
        *,
        documents: str = "",
        sdk: SdkTranslator | None = None,
    ) -> None:
        self.chunks = iter(chunks)  # read once, by the decode and then by the drain
        self.sdk = sdk  # MCPJam SDK results are translated to OTLP NDJSON before framing
        self.options = options
        native = options.native and options.fast and options.native_parts
        self.documents = documents if native else ""
        self.executor = executor
        self.ahead = max(1, ahead or PARTS_AHEAD_PER_WORKER * max(1, options.workers))
        self.keep = False
        self.merger = SourceMerger(source, options)
        self._digest = hashlib.sha256()
        self._result: DecodedSource | None = None

    @property
    def result(self) -> DecodedSource:
        if self._result is None:
            raise RuntimeError("iterate the stream to its end first")
        return self._result

    def __iter__(self) -> Iterator[Batch]:
        merger = self.merger
        merger.keep = self.keep
        unpacker = Unpacker(self._hashed(), self.options.max_decompressed_bytes)
        pieces = iter(unpacker)
        head = self._head(pieces)
        framer: framing.Framer | None = None
        results: Iterator[PartResult]
        if self.sdk is not None and looks_like_sdk(b"".join(head)[:SNIFF_BYTES]):
            whole = bytearray().join(head)
            for piece in pieces:  # SDK payloads are one report or run, read whole
                whole += piece
            del head
            results = self._sdk_parts(self.sdk, whole)
            del whole  # the parse holds the source's values, never its bytes
        else:
            # the pieces as they came: the framer's parts follow the batch size, not the sniff
            framer = framing.Framer(
                chain(head, pieces), self.options.batch_bytes, documents=self.documents
            )
            del head
            results = self._decoded(iter(framer))
        cap = self.options.max_decompressed_bytes
        for result in results:
            if result.refused:
                raise DocumentRefused("the native path refused a run of the document", result.again)
            yield merger.merge(result)
            if unpacker.bytes_out + merger.extra_decoded > cap and merger.zstd_records:
                merger.problem(
                    Code.E_TOO_LARGE, f"decompressed size exceeds the cap of {cap} bytes"
                )
                break
        if unpacker.problem is not None:
            merger.problem(unpacker.problem, unpacker.message or "")
            if unpacker.problem in (Code.E_TRUNCATED_COMPRESSION, Code.E_TOO_LARGE):
                _blame_the_cut(merger, unpacker.problem, unpacker.message or "")
        framed = framer.framing if framer is not None and framer.streamed else None
        decoded = merger.finish(unpacker.compression, framed, unpacker.bytes_out)
        if decoded.status != "rejected":  # the rest is still the source's (never stored else)
            for _ in self._hashed():
                pass
        decoded.sha256 = self._digest.hexdigest()
        self._result = decoded

    def _head(self, pieces: Iterator[bytes]) -> list[bytes]:
        """The first decompressed pieces: enough to tell SDK results (all, when none could
        be)."""
        head: list[bytes] = []
        if self.sdk is None:
            return head
        size = 0
        for piece in pieces:
            head.append(piece)
            size += len(piece)
            if size >= SNIFF_BYTES:
                break
        return head

    def _sdk_parts(self, translator: SdkTranslator, data: bytearray) -> Iterator[PartResult]:
        """MCPJam SDK results (docs/spec/mcpjam-sdk.md §4): read here, then translated and decoded
        a job of trials at a time on the workers (`sdk_parts`), in order; positions count
        across the jobs' NDJSON as if it were one translated source. The parse's millions of
        acyclic values are frozen (`gc.freeze`) until the source is decoded: no collection
        walks them again (one pass over them cost as much as a sixth of the translation)."""
        with collector_paused():
            read = translator.read(data, self.merger.out.source)
            gc.freeze()
        try:
            data.clear()  # the bytes are hashed and parsed: let them go
            merger = self.merger
            merger.sdk_translated(read.quarantined, read.refused)
            if read.refused is not None:
                yield decode_part(framing.Whole(b""), self.options)  # an empty source, refused
                return
            merger.out.encoding_flavor = ENCODING_FLAVOR
            offset, line, decoded = 0, 1, False
            jobs = read.jobs(job_bytes(self.options))
            del read
            work = (((translator, job), job.size) for job in jobs)
            for part in self._in_order(sdk_part, work):
                merger.sdk_translated(part.problems, None)
                if part.result is not None:
                    decoded = True
                    yield place(part.result, offset, line)
                offset, line = offset + part.size, line + part.lines
            if not decoded:  # no trial translated: the empty source, as before any translation
                yield decode_part(framing.Whole(b""), self.options)
        finally:
            gc.unfreeze()

    def _hashed(self) -> Iterator[bytes]:
        for chunk in self.chunks:
            self._digest.update(chunk)
            self.merger.out.bytes_raw += len(chunk)
            yield chunk

    def _decoded(self, parts: Iterator[framing.Part]) -> Iterator[PartResult]:
        return self._in_order(decode_part, (((part,), len(part.data)) for part in parts))

    def _in_order(
        self, work: Callable[..., R], jobs: Iterable[tuple[tuple[Any, ...], int]]
    ) -> Iterator[R]:
        """``work(*args, options)`` for each job ``(args, its size in bytes)``, in this
        process or up to ``ahead`` at a time on the executor's workers; results in order."""
        if self.executor is None:
            for args, _ in jobs:
                yield work(*args, self.options)
            return
        pending: deque[tuple[Future[R], int]] = deque()
        submit: Callable[..., Future[R]] = self.executor.submit
        # bytes in flight are bounded too: parts are about a batch each, but a run of a
        # document's spans (one long span, line or record) can be many batches
        budget, held = (self.ahead + 1) * self.options.batch_bytes, 0
        try:
            for args, size in jobs:
                pending.append((submit(work, *args, self.options), size))
                held += size
                while len(pending) > self.ahead or (held > budget and len(pending) > 1):
                    future, done = pending.popleft()
                    held -= done
                    yield future.result()
            while pending:
                yield pending.popleft()[0].result()
        finally:  # cut short (a refused document, a failed write): nothing more to decode
            for future, _ in pending:
                future.cancel()


def _blame_the_cut(merger: SourceMerger, code: Code, cut: str) -> None:
    """A source rejected for what a cut compressed stream left (no bytes at all: "empty"; a
    document ending inside a value) is rejected for the cut itself (TRACE-FORMAT §5.2): a
    stream that ends early, or one stopped at the decompressed-size cap (``E_TOO_LARGE``:
    the fix is the cap, never a re-download)."""
    seen = merger.rejection
    if seen is None:
        return
    problem = cut if seen.code is Code.E_NO_TRACES else f"{cut}; {seen.problem}"
    truncated = code is Code.E_TRUNCATED_COMPRESSION and seen.code is Code.E_TRUNCATED_JSON
    hint = seen.hint if truncated else None
    # the cut is already logged (``merger.problem``): the rejection does not log it again
    merger.rejection = Rejection(code, None, problem, hint or HINTS[code], log=False)
