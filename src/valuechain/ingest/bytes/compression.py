"""Decompression of a source and of its records under a size cap (TRACE-FORMAT §1.8 step 1, §5.3).

``Unpacker`` turns an iterable of raw chunks (a file read piece by piece) into decompressed
chunks without ever holding the whole output: gzip (several members allowed, trailing zero
padding ignored) and zstd (one or more standard frames, the collector's *native* compression)
are recognised by their magic bytes; anything else passes through untouched. Output stops at
``max_bytes`` (``E_TOO_LARGE``); a stream that ends early or is corrupt ends the output where
the decompressor stopped (``E_TRUNCATED_COMPRESSION``). ``unzstd_record`` undoes the
collector's *legacy* compression, one zstd frame per length-prefixed record, under the same cap.

zstd comes from ``compression.zstd`` (Python 3.14) or its backport ``backports.zstd``: its
decompressor bounds the output of every call (``max_length``), so a zstd bomb is never
inflated past the cap, and it reports ``eof``/``unused_data`` per frame, which is how a cut
stream is told from a finished one.
"""

from __future__ import annotations

import itertools
import sys
import zlib
from collections.abc import Iterable, Iterator
from typing import Any

from valuechain.contract.issues import Code, Issue

if sys.version_info >= (3, 14):  # pragma: no cover - the stdlib module of 3.14
    from compression import zstd
else:
    from backports import zstd

GZIP_MAGIC = b"\x1f\x8b"
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
DEFAULT_MAX_DECOMPRESSED = 4 << 30  # TRACE-FORMAT §7 decision 5
_OUT_CHUNK = 1 << 20  # decompressed bytes per decompressor call
_IN_CHUNK = 1 << 16


def zstd_decompressor() -> Any:
    """A one-frame zstd decompressor (stdlib-style API: ``decompress(data, max_length)``)."""
    return zstd.ZstdDecompressor()


def zstd_compress(data: bytes, level: int = 3) -> bytes:
    """One zstd frame holding ``data`` (the collector's per-record legacy compression)."""
    return bytes(zstd.compress(data, level=level))


def zstd_open_write(path: Any, level: int = 3) -> Any:
    """A binary file object writing one standard zstd stream (native compression)."""
    return zstd.ZstdFile(path, "wb", level=level)


ZstdError: type[Exception] = zstd.ZstdError


class Unpacker:
    """Decompressed chunks of a source; ``compression``, ``problem`` and ``message`` say how."""

    def __init__(self, chunks: Iterable[bytes], max_bytes: int = DEFAULT_MAX_DECOMPRESSED) -> None:
        self._chunks = iter(chunks)
        self.max_bytes = max_bytes
        self.compression = "none"
        self.problem: Code | None = None
        self.message: str | None = None
        self.bytes_out = 0
        self._head = b""
        while len(self._head) < len(ZSTD_MAGIC):
            piece = next(self._chunks, None)
            if piece is None:
                break
            self._head += piece
        if self._head.startswith(GZIP_MAGIC):
            self.compression = "gzip"
        elif self._head.startswith(ZSTD_MAGIC):
            self.compression = "zstd-native"

    def __iter__(self) -> Iterator[bytes]:
        if self.compression == "none":  # decoded bytes are the file's own: counted, not capped
            for piece in itertools.chain((self._head,) if self._head else (), self._chunks):
                self.bytes_out += len(piece)
                yield piece
            return
        yield from self._inflate()

    # ------------------------------------------------------------------ internals
    def _input(self) -> Iterator[bytes]:
        if self._head:
            yield self._head
        for piece in self._chunks:
            for i in range(0, len(piece), _IN_CHUNK):
                yield piece[i : i + _IN_CHUNK]

    def _emit(self, data: bytes) -> tuple[bytes, bool]:
        """``data`` cut at the cap, and whether the cap was reached."""
        room = self.max_bytes - self.bytes_out
        if len(data) > room:
            self.bytes_out = self.max_bytes
            self._fail(
                Code.E_TOO_LARGE, f"decompressed size exceeds the cap of {self.max_bytes} bytes"
            )
            return data[:room], True
        self.bytes_out += len(data)
        return data, False

    def _fail(self, code: Code, message: str) -> None:
        if self.problem is None:
            self.problem, self.message = code, message

    def _new(self) -> Any:
        if self.compression == "gzip":
            return zlib.decompressobj(wbits=31)
        return zstd_decompressor()

    def _step(self, engine: Any, data: bytes) -> tuple[bytes, bytes]:
        """Decompress up to one output chunk: (output, input still to feed)."""
        if self.compression == "gzip":
            out = engine.decompress(data, _OUT_CHUNK)
            return out, engine.unconsumed_tail
        out = engine.decompress(data, _OUT_CHUNK)
        return out, b""

    def _more(self, engine: Any, out: bytes) -> bool:
        """Whether the engine may still hold output for input it already took (zlib can
        keep a match it had no room for, its input all taken: a full chunk asks again)."""
        if self.compression == "gzip":
            return bool(engine.unconsumed_tail) or len(out) == _OUT_CHUNK
        return not engine.eof and not engine.needs_input

    def _inflate(self) -> Iterator[bytes]:
        name = "gzip" if self.compression == "gzip" else "zstd"
        errors: tuple[type[Exception], ...] = (zlib.error, ZstdError)
        engine = self._new()
        pending = b""  # input after the end of a member/frame, not yet started
        source = self._input()
        exhausted = False
        while True:
            if engine is None:  # between members: skip zero padding, start the next one
                while not pending.lstrip(b"\x00"):
                    piece = next(source, None)
                    if piece is None:
                        return
                    pending += piece
                pending = pending.lstrip(b"\x00")
                engine = self._new()
            if pending:
                data, pending = pending, b""
            else:
                piece = next(source, None)
                if piece is None:
                    exhausted = True
                    break
                data = piece
            try:
                while True:
                    out, data = self._step(engine, data)
                    if out:
                        out, capped = self._emit(out)
                        if out:
                            yield out
                        if capped:
                            return
                    if engine.eof:
                        break
                    if data or self._more(engine, out):
                        continue
                    break
            except errors as exc:
                self._fail(
                    Code.E_TRUNCATED_COMPRESSION,
                    f"the {name} stream is corrupt after {self.bytes_out} bytes ({exc})",
                )
                return
            if engine.eof:
                # everything after the member or frame: zlib keeps its ``unconsumed_tail``
                # (``data``) at the end of a member, yet already counts it in ``unused_data``
                pending = engine.unused_data
                engine = None
        if exhausted and engine is not None:
            self._fail(
                Code.E_TRUNCATED_COMPRESSION,
                f"the {name} stream ends early, after {self.bytes_out} decompressed bytes",
            )


def unzstd_record(payload: bytes, max_bytes: int) -> bytes | Issue:
    """One zstd frame of a length-prefixed record, decompressed; an ``Issue`` says why it is not."""
    engine = zstd_decompressor()
    try:
        out = engine.decompress(payload, max_length=max_bytes + 1)
    except Exception as exc:  # zstd.ZstdError: a corrupt frame
        return Issue(Code.E_TRUNCATED_COMPRESSION, f"a zstd-compressed record is corrupt ({exc})")
    if len(out) > max_bytes:
        return Issue(Code.E_TOO_LARGE, f"a record decompresses beyond the cap of {max_bytes} bytes")
    if not engine.eof:
        return Issue(Code.E_TRUNCATED_COMPRESSION, "a zstd-compressed record ends early")
    return bytes(out)
