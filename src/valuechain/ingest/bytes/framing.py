"""Cutting a decompressed source into parts (TRACE-FORMAT §1.8 steps 2–3, §5.3): where records are.

``Framer`` cuts a source into *parts*, runs of whole records that can be decoded
independently, in bounded memory, by any process:

- ``Lines``: whole NDJSON lines (the collector's ``json`` framing), cut every ~``batch_bytes``.
- ``Records``: whole length-prefixed records (4-byte big-endian length, then a protobuf
  message, a zstd frame holding one — the collector's *legacy* compression — or JSON).
- ``Items``: runs of the spans of a single JSON document larger than a batch, cut between
  spans or items (``items``), when the reader can read the source again should a run not be
  decoded (``documents=items.SPANS``; then in runs of whole items, ``items.ITEMS``, or whole).
- ``Whole``: the whole body, for everything else: a source that fits in one batch (so small
  sources take exactly the one-shot path), a single JSON document read whole, concatenated
  pretty-printed documents, a stream whose first line is not a JSON value, and a bare ``.pb``
  request. This is the one place memory is not bounded by the batch size, but by the
  records read whole. (Text in UTF-16 or UTF-32, and bytes that are neither JSON, records nor
  a protobuf request, are rejected by their first bytes alone: their ``Whole`` is the first
  batch, no more.)

Whitespace is not records: a run of it longer than a batch is counted, not held (``blanks``),
so a document followed by gigabytes of spaces reads in the memory of the document. Nor is a
run of NUL bytes at the end of JSON text, or of a would-be protobuf request once a top-level
field shows it is none, read whole: past a batch of it, the rest is counted (``Whole.nuls``),
so ``{"a":`` or a newline and then gigabytes of zeros read in the memory of a batch and report
the very issue (code, line, byte range) the whole body would.

Cuts never split a record, but for a single document's spans (``Items``). NDJSON parts are
cut before the last non-blank line seen, so every part but the final one is followed by another
record and only the final part can end in a truncated line (``E_TRUNCATED_RECORD``), exactly as
when the body is read whole. Which first line makes a stream is ``json_values.parses``, the rule
the one-shot reading uses too.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace

from valuechain.ingest.bytes import items
from valuechain.ingest.bytes.binary_frames import (
    MAX_RECORD_BYTES,
    PREFIX,
    PROTO_FIRST,
    TopLevel,
    length_prefixed,
)
from valuechain.ingest.bytes.blanks import Gap, Pieces, blank
from valuechain.ingest.bytes.json_values import BOM, parses, skip_space
from valuechain.ingest.bytes.recognise import wide_text

DEFAULT_BATCH_BYTES = 8 << 20
_NULS_KEPT = 4096  # NUL bytes of a run always held: what ``describe_text`` reads


@dataclass(frozen=True, slots=True)
class Lines:
    data: bytes
    start: int  # byte offset of data[0] in the decompressed source
    first_line: int
    final: bool


@dataclass(frozen=True, slots=True)
class Records:
    data: bytes
    start: int
    final: bool  # only the final part may end in a cut record


@dataclass(frozen=True, slots=True)
class Items:
    data: bytes  # a run of the document's spans and items, cut where ``items.last_cut`` says
    start: int  # byte offset of data[0] in the decompressed source
    final: bool  # the document's last bytes (``data`` without the list's and document's ends)
    first_item: int  # the index of the item ``data`` starts in
    head: bytes = b""  # the heads of the item and scope ``data`` continues (b"": starts an item)
    first_scope: int = 0  # where ``data`` starts in the item it continues: its scope's index
    first_span: int = 0  # and its first span's
    inside: bool = False  # ``data`` ends inside a spans list (``items.INSIDE`` closes it)


@dataclass(frozen=True, slots=True)
class Whole:
    data: bytes
    # NUL bytes that followed ``data`` to the end of the source, counted, not held: the end
    # of a run of them longer than a batch, in JSON text (NUL is never JSON: the text is
    # broken at or before the first one, which ``data`` keeps) or in a protobuf request
    # whose top-level fields already showed it is none (``TopLevel``)
    nuls: int = 0


Part = Lines | Records | Items | Whole


class Framer:
    """The parts of one decompressed source, read from ``chunks`` a batch at a time."""

    def __init__(
        self,
        chunks: Iterable[bytes],
        batch_bytes: int = DEFAULT_BATCH_BYTES,
        *,
        documents: str = "",
    ) -> None:
        self.batch_bytes = max(batch_bytes, 1)
        # a run of whitespace longer than a batch is counted, not held (``blanks``)
        self._pieces = Pieces(chunks, self.batch_bytes)
        # a single document over a batch is cut between its spans (``items.SPANS``), between
        # its items (``items.ITEMS``), or read whole ("")
        self.documents = documents
        self.framing = "single"  # single | stream | length-prefixed (final after iteration)
        self.streamed = False  # whether the source was read in several parts
        self._count_nuls = False  # whether ``_fill_nuls`` counts a long run of NUL bytes
        self._nul_run = 0  # the NUL bytes ending what ``_fill_nuls`` has held
        self._nuls = 0  # and those it counted after them, not held (see ``Whole.nuls``)

    def _fill(self, buf: bytearray, want: int) -> bool:
        """Read until ``buf`` holds ``want`` bytes; False at the end of the input. A long
        blank run followed by more comes back byte for byte (it may be inside a string)."""
        while len(buf) < want:
            piece = self._pieces.read()
            if piece is None:
                return False
            buf += piece.restored() if isinstance(piece, Gap) else piece
        return True

    def _fill_nuls(self, buf: bytearray, want: int) -> bool:
        """``_fill`` for a body read whole that can no longer be read as one (JSON text, which
        never holds a NUL byte, or a request with a field no request has): once ``buf`` ends in
        a batch of NUL bytes, more of them are counted, not held (``self._nuls``); content after
        them brings them back byte for byte (where it is matters to the decoder's issues)."""
        while len(buf) < want:
            piece = self._pieces.read()
            if piece is None:
                return False
            if isinstance(piece, Gap):
                piece = piece.restored()
            if piece.count(0) == len(piece):
                if self._count_nuls and self._nul_run >= max(self.batch_bytes, _NULS_KEPT):
                    self._nuls += len(piece)
                    continue
                self._nul_run += len(piece)
            else:
                if self._nuls:
                    buf += bytes(self._nuls)
                    self._nuls = 0
                self._nul_run = len(piece) - len(piece.rstrip(b"\x00")) if piece[-1] == 0 else 0
            buf += piece
        return True

    def _fill_lines(self, buf: bytearray, want: int) -> bool | Gap:
        """``_fill`` between NDJSON lines: a long blank run that starts on a blank line is
        returned, not added (the part ends before it, the next starts after it)."""
        while len(buf) < want:
            piece = self._pieces.read()
            if piece is None:
                return False
            if isinstance(piece, Gap):
                if blank(bytes(buf[buf.rfind(b"\n") + 1 :])):
                    return piece
                piece = piece.restored()
            buf += piece
        return True

    def __iter__(self) -> Iterator[Part]:
        buf = bytearray()
        if not self._fill(buf, self.batch_bytes + 1):
            yield Whole(bytes(buf))
            return
        if wide_text(bytes(buf[:64])) is not None:  # rejected as it is: read no further
            yield Whole(bytes(buf))
            return
        start = len(BOM) if buf.startswith(BOM) else 0
        first = skip_space(buf, start)
        head = items.HEAD.match(buf, start) if self.documents else None
        if head is not None and not _first_line_parses(buf, first):
            yield from self._items(buf, first, head.end())
        elif first < len(buf) and buf[first] in (0x7B, 0x5B):  # { or [
            yield from self._lines(buf, start, first)
        elif length_prefixed(bytes(buf[:64])):
            yield from self._records(buf)
        elif first < len(buf) and buf[0] != PROTO_FIRST:
            # neither JSON nor records nor one protobuf request: rejected by its first bytes
            # (``recognise.describe_text``), so only they are kept; the rest is read on, not
            # held, to its end or the decompressed-size cap (10 GiB of zeros: the cap's error)
            yield Whole(bytes(buf))
            self._pieces.drain()
        elif first < len(buf):  # perhaps one protobuf request: its bytes as they are
            self._pieces.text = False
            yield self._request(buf)
        else:
            yield self._whole(buf)

    def _whole(self, buf: bytearray) -> Whole:
        while self._fill_nuls(buf, len(buf) + 1):
            pass
        return Whole(bytes(buf), self._nuls)

    def _request(self, buf: bytearray) -> Whole:
        """Perhaps one protobuf request, read whole; once its top-level fields show it is none
        (``TopLevel``), a long run of NUL bytes is counted, not held (``_fill_nuls``)."""
        top = TopLevel()
        self._nul_run = len(buf) - len(buf.rstrip(b"\x00"))
        while True:
            self._count_nuls = self._count_nuls or top.broken(buf)
            if not self._fill_nuls(buf, len(buf) + 1):
                return Whole(bytes(buf), self._nuls)

    # ------------------------------------------------------------------ NDJSON
    def _lines(self, buf: bytearray, start: int, first: int) -> Iterator[Part]:
        self._count_nuls, self._nul_run = True, len(buf) - len(buf.rstrip(b"\x00"))
        end = buf.find(b"\n", first)
        while end < 0:  # the first line is longer than a batch: read on to its end
            size = len(buf)
            if not self._fill_nuls(buf, size + self.batch_bytes):
                break
            end = buf.find(b"\n", size)
        line = bytes(buf[first:end]) if end >= 0 else b""
        rest_blank = end < 0 or not bytes(buf[end:]).strip()
        gap = None
        if end >= 0 and rest_blank and parses(line):  # lines may follow a long blank run
            gap, rest_blank = self._blank_on(buf)
        if end < 0 or rest_blank or not parses(line):
            yield self._whole(buf)  # one document, or not NDJSON: the one-shot path
            return
        self.framing, self.streamed = "stream", True
        del buf[:start]
        yield from self._line_parts(buf, start, 1, gap)

    def _blank_on(self, buf: bytearray) -> tuple[Gap | None, bool]:
        """Read on while what follows the first line is blank: (the long blank run that more
        content follows, to skip, or None; whether all of it was blank, to the end)."""
        while True:
            size = len(buf)
            more = self._fill_lines(buf, size + 1)
            if more is False:
                return None, True
            if isinstance(more, Gap):
                if self._pieces.after_gap.strip():
                    return more, False
                buf += more.restored()  # \v or \f: blank to the one-shot reading, not to JSON
            elif bytes(buf[size:]).strip():
                return None, False

    def _line_parts(
        self, buf: bytearray, offset: int, line_no: int, gap: Gap | None = None
    ) -> Iterator[Part]:
        """Parts of whole lines from ``buf`` on (it starts line ``line_no`` at ``offset``;
        ``gap``: a long blank run read after ``buf``, content after it)."""
        while True:
            more = gap or self._fill_lines(buf, self.batch_bytes + 1)
            gap = None
            cut = max(last_line_start(buf), 0)  # the tail starts with the last non-blank line
            if more is True and cut <= 0:  # one line longer than a batch: read on
                more = self._fill_lines(buf, len(buf) + self.batch_bytes)
                if more is True:
                    continue
            if more is False:
                yield Lines(bytes(buf), offset, line_no, True)
                return
            if isinstance(more, Gap):  # blank lines between records: skipped, still counted
                data, tail = bytes(buf), self._gap_tail(more)
                if tail and not more.newlines:  # the line the content goes on starts in buf
                    line_start = buf.rfind(b"\n") + 1
                    data, tail = bytes(buf[:line_start]), bytes(buf[line_start:]) + tail
                if data:
                    yield Lines(data, offset, line_no, False)
                offset += len(buf) + more.size - len(tail)  # where tail starts
                line_no += data.count(b"\n") + more.newlines
                buf[:] = tail
                continue
            data = bytes(buf[:cut])
            del buf[:cut]
            yield Lines(data, offset, line_no, False)
            offset += len(data)
            line_no += data.count(b"\n")

    def _gap_tail(self, gap: Gap) -> bytes:
        """What of a blank run between lines starts the line the content after it goes on:
        nothing when that line is blank to its end (spaces, then a newline and a record)."""
        after = self._pieces.after_gap
        nl = after.find(b"\n")
        return b"" if nl >= 0 and not after[:nl].strip() else gap.last_line()

    # ------------------------------------------------------------------ a single document
    def _items(self, buf: bytearray, first: int, begin: int) -> Iterator[Part]:
        """A document cut between its spans (or items), every part about a batch. A document
        on one line followed by more lines is NDJSON's first record: the other lines follow as
        ``Lines``.

        Raises:
            items.DocumentRefused: it does not end as one document, or a part could not be
                reopened where it starts (the reader reads it whole).
        """
        self.framing, self.streamed = "single", True
        # the lines before the document's `{` and inside it so far (whatever a cut drops)
        before, inside_lines = buf.count(b"\n", 0, first), buf.count(b"\n", first, begin)
        del buf[:begin]
        offset = begin
        context = items.Context()
        at = Items(b"", begin, False, 0)  # where the next part starts
        while True:
            more = self._fill(buf, self.batch_bytes + 1)
            end, cut, inside = _document_end_or_cut(buf, self.documents)
            while more and end < 0 and cut <= 0:  # one span longer than a batch: read on
                more = self._fill(buf, len(buf) + self.batch_bytes)
                end, cut, inside = _document_end_or_cut(buf, self.documents)
            if end >= 0 or cut <= 0:  # the document's last bytes
                data = items.closed(buf[: end if end >= 0 else len(buf)])
                yield replace(at, data=data, start=offset, final=True)
                if end < 0:
                    return
                line_end = buf.index(b"\n", end) + 1
                if inside_lines + buf.count(b"\n", 0, end):  # concatenated documents
                    raise items.DocumentRefused("a document followed by another one")
                self.framing = "stream"
                del buf[:line_end]
                yield from self._line_parts(buf, offset + line_end, before + 2)
                return
            data = items.separated(buf, cut)
            yield replace(at, data=data, start=offset, inside=inside)
            if self.documents == items.SPANS:
                context.advance(data)
            else:  # whole items: only their count
                context.item += items.count_keys(data, items.ITEM_KEY)
            if inside:  # the next part goes on in this item and scope
                head = context.item_head + context.scope_head
                at = Items(b"", 0, False, context.item, head, context.scope, context.spans)
            else:  # the next part starts the next item
                at = Items(b"", 0, False, context.item + 1)
            inside_lines += buf.count(b"\n", 0, cut)
            del buf[:cut]
            offset += cut

    # ------------------------------------------------------------------ length-prefixed
    def _records(self, buf: bytearray) -> Iterator[Part]:
        self.framing, self.streamed = "length-prefixed", True
        self._pieces.text = False  # binary: a run of 0x20 bytes is data
        offset = 0
        while True:
            if not self._fill(buf, self.batch_bytes + 4):
                yield Records(bytes(buf), offset, True)
                return
            pos = _complete(buf, self.batch_bytes)
            if pos == 0:
                (size,) = PREFIX.unpack_from(buf)
                if size > MAX_RECORD_BYTES:  # corrupt framing: the rest is one broken item
                    yield Records(bytes(buf), offset, True)
                    return
                if not self._fill(buf, 4 + size):  # one record longer than a batch
                    yield Records(bytes(buf), offset, True)
                    return
                continue
            data = bytes(buf[:pos])
            del buf[:pos]
            yield Records(data, offset, False)
            offset += len(data)


def _document_end_or_cut(buf: bytearray, cuts: str) -> tuple[int, int, bool]:
    """Where the document ends before another record (-1: not in ``buf``), else where the
    next part may start (-1: nowhere) and whether that is inside an item (``items.last_cut``)."""
    end = items.record_end(buf)
    if end >= 0:
        return end, -1, False
    return (-1, *items.last_cut(buf, cuts))


def _first_line_parses(buf: bytearray, first: int) -> bool:
    """Whether the first line is whole in ``buf`` and one JSON value (NDJSON, not a document)."""
    end = buf.find(b"\n", first)
    return end >= 0 and parses(bytes(buf[first:end]))


def _complete(buf: bytearray, limit: int) -> int:
    """The end of the whole records at the start of ``buf``, stopping once past ``limit``."""
    pos = 0
    while len(buf) - pos >= 4:
        (size,) = PREFIX.unpack_from(buf, pos)
        if size > MAX_RECORD_BYTES or pos + 4 + size > len(buf):
            break
        pos += 4 + size
        if pos >= limit:
            break
    return pos


def last_line_start(data: bytes | bytearray) -> int:
    """Where the last non-blank line of ``data`` starts (-1 when every line is blank)."""
    end = len(data)
    while end > 0:
        nl = data.rfind(b"\n", 0, end)
        if data[nl + 1 : end].strip():
            return nl + 1
        if nl < 0:
            return -1
        end = nl
    return -1
