"""Streaming a source's bytes through part decoding (in-process or on workers) and merging."""

from __future__ import annotations

import hashlib
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Executor, Future

from valuechain.contract.issues import HINTS, Code
from valuechain.ingest.bytes import framing
from valuechain.ingest.bytes.compression import Unpacker
from valuechain.ingest.bytes.items import DocumentRefused
from valuechain.ingest.mcpjam import ENCODING_FLAVOR, SNIFF_BYTES, SdkTranslator, looks_like_sdk
from valuechain.ingest.source.decoded import DecodedSource, DecodeOptions
from valuechain.ingest.source.merge import Batch, SourceMerger
from valuechain.ingest.source.parts import decode_part
from valuechain.ingest.source.records import PartResult, Rejection

# ---------------------------------------------------------------------------- streaming
# Parts decoded ahead of the one being committed, per worker: the writer commits a group of
# ``COMMIT_ROWS`` rows (several parts) at once, and the workers need room for what they decode
# meanwhile. With 3 parts in flight for two workers they waited out each group write: a
# 212 MB NDJSON import took 4.8-4.9 s in-process, with 8 (4 a worker) 4.4-4.6 s, and a 2 GB
# import's peak RSS went from 1,086 to 1,171 MB (groups of 400k rows then; with groups of a
# million, 12 in flight measured no better than 8).
PARTS_AHEAD_PER_WORKER = 4


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
        decompressed: Iterable[bytes] = (
            unpacker if self.sdk is None else self._sdk_sniffed(unpacker)
        )
        framer = framing.Framer(decompressed, self.options.batch_bytes, documents=self.documents)
        cap = self.options.max_decompressed_bytes
        for result in self._decoded(iter(framer)):
            if result.refused:
                raise DocumentRefused("the native path refused a run of the document", result.again)
            yield merger.add(result)
            if unpacker.bytes_out + merger.extra_decoded > cap and merger.zstd_records:
                merger.problem(
                    Code.E_TOO_LARGE, f"decompressed size exceeds the cap of {cap} bytes"
                )
                break
        if unpacker.problem is not None:
            merger.problem(unpacker.problem, unpacker.message or "")
            if unpacker.problem in (Code.E_TRUNCATED_COMPRESSION, Code.E_TOO_LARGE):
                _blame_the_cut(merger, unpacker.problem, unpacker.message or "")
        decoded = merger.finish(
            unpacker.compression,
            framer.framing if framer.streamed else None,
            unpacker.bytes_out,
        )
        if decoded.status != "rejected":  # the rest is still the source's (never stored else)
            for _ in self._hashed():
                pass
        decoded.sha256 = self._digest.hexdigest()
        self._result = decoded

    def _sdk_sniffed(self, pieces: Iterable[bytes]) -> Iterator[bytes]:
        """The decompressed bytes as they are, or — when their start is MCPJam SDK results —
        their translation to OTLP NDJSON (docs/mcpjam-sdk.md §4), read whole: SDK payloads
        are one report or run, never a collector's stream."""
        it = iter(pieces)
        head = bytearray()
        for piece in it:
            head += piece
            if len(head) >= SNIFF_BYTES:
                break
        if self.sdk is None or not looks_like_sdk(bytes(head[:SNIFF_BYTES])):
            yield bytes(head)
            yield from it
            return
        for piece in it:
            head += piece
        translation = self.sdk(bytes(head), self.merger.out.source)
        merger = self.merger
        merger.sdk_translated(translation.quarantined, translation.refused)
        if translation.refused is None:
            merger.out.encoding_flavor = ENCODING_FLAVOR
            yield translation.data

    def _hashed(self) -> Iterator[bytes]:
        for chunk in self.chunks:
            self._digest.update(chunk)
            self.merger.out.bytes_raw += len(chunk)
            yield chunk

    def _decoded(self, parts: Iterator[framing.Part]) -> Iterator[PartResult]:
        if self.executor is None:
            for part in parts:
                yield decode_part(part, self.options)
            return
        pending: deque[tuple[Future[PartResult], int]] = deque()
        submit: Callable[..., Future[PartResult]] = self.executor.submit
        # bytes in flight are bounded too: parts are about a batch each, but a run of a
        # document's spans (one long span, line or record) can be many batches
        budget, held = (self.ahead + 1) * self.options.batch_bytes, 0
        try:
            for part in parts:
                pending.append((submit(decode_part, part, self.options), len(part.data)))
                held += len(part.data)
                while len(pending) > self.ahead or (held > budget and len(pending) > 1):
                    future, size = pending.popleft()
                    held -= size
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
