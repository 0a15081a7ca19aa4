"""Reading decompressed pieces with a long run of whitespace counted, not held (issue 38.2).

A few MB of gzip can hold a valid document and then gigabytes of spaces. Whitespace between
JSON values means nothing but where the bytes after it are (their byte offset and line), so
``Pieces`` passes a run of blank pieces on as it is only up to ``held`` bytes; beyond that it
keeps a ``Gap``: each run of identical pieces once, with how many times it came (a
decompressor's run of spaces is the same piece again and again). A gap at the end of the input
is dropped but for its last byte (a final line still ends with its newline, or does not).
When content follows, the reader decides: ``Gap.restored`` gives the run back byte for byte (it
may be inside a string), or the reader skips it when it knows it lies between records
(NDJSON parts carry their byte offset and line number).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

BLANK = b" \t\r\n"  # JSON's whitespace (RFC 8259 §2); \v and \f are not


def blank(piece: bytes) -> bool:
    """Whether ``piece`` is JSON whitespace only. Its start tells content at once; a blank
    one is scanned by ``translate`` (0.4 ms a MiB; ``strip(BLANK)`` took 1.8)."""
    return not piece[:64].translate(None, BLANK) and not piece.translate(None, BLANK)


@dataclass(slots=True)
class Gap:
    """A run of blank pieces too long to hold: each run of identical pieces once, counted. A
    piece of one byte repeated (a decompressor's run of spaces) is kept as that byte and its
    length, not its bytes: its pieces come in several lengths (a full output chunk, and what
    is left of an input chunk), and holding one of each change took 20–30 MB a GiB."""

    # (the piece, or its one byte repeated; its length; how many times; its newlines)
    runs: list[tuple[bytes, int, int, int]] = field(default_factory=list)
    size: int = 0
    newlines: int = 0

    def count(self, piece: bytes) -> None:
        unit = piece[:1] if piece.count(piece[:1]) == len(piece) else piece
        if self.runs and self.runs[-1][0] == unit and self.runs[-1][1] == len(piece):
            last, length, times, newlines = self.runs[-1]
            self.runs[-1] = (last, length, times + 1, newlines)
        else:
            newlines = piece.count(b"\n")
            self.runs.append((unit, len(piece), 1, newlines))
        self.size += len(piece)
        self.newlines += newlines

    @staticmethod
    def _piece(unit: bytes, length: int) -> bytes:
        return unit if len(unit) == length else unit * length

    def restored(self) -> bytes:
        """The run byte for byte."""
        return b"".join(self._piece(unit, length) * times for unit, length, times, _ in self.runs)

    def last_line(self) -> bytes:
        """The run's bytes after its last newline (all of it when it holds none)."""
        tail: list[bytes] = []
        for unit, length, times, newlines in reversed(self.runs):
            piece = self._piece(unit, length)
            if newlines:
                tail.append(piece[piece.rindex(b"\n") + 1 :])
                break
            tail.append(piece * times)
        return b"".join(reversed(tail))

    def last_byte(self) -> bytes:
        return self.runs[-1][0][-1:]


class Pieces:
    """The pieces of ``chunks``: bytes, or a ``Gap`` when content follows a long blank run
    (then the content is the next piece); None at the end."""

    def __init__(self, chunks: Iterable[bytes], held: int) -> None:
        self._chunks: Iterator[bytes] = iter(chunks)
        self.held = held  # blank bytes passed on as they are before a gap starts
        # False: every byte as it is (length-prefixed records, a protobuf request: binary,
        # where a run of 0x20 bytes is data and dropping the end of one would cut a record)
        self.text = True
        self._blank_run = 0  # blank bytes passed on since the last content
        self._after_gap: bytes | None = None
        self._blank = b""  # the last blank piece (b"" never equals a piece read)

    @property
    def after_gap(self) -> bytes:
        """The content after the ``Gap`` just read (b"" when there is none)."""
        return self._after_gap or b""

    def read(self) -> bytes | Gap | None:
        if self._after_gap is not None:
            piece, self._after_gap = self._after_gap, None
            return piece
        gap: Gap | None = None
        for piece in self._chunks:
            if not piece:
                continue
            if self.text and (piece == self._blank or blank(piece)):
                self._blank = piece  # a run of spaces is the same piece again and again
                if gap is None and self._blank_run < self.held:
                    self._blank_run += len(piece)
                    return piece
                gap = gap or Gap()
                gap.count(piece)
                continue
            self._blank_run = 0
            if gap is None:
                return piece
            self._after_gap = piece
            return gap
        return gap.last_byte() if gap is not None else None

    def drain(self) -> None:
        """Read the rest without keeping it (the decompressor still counts it and caps it)."""
        self._after_gap = None
        for _ in self._chunks:
            pass
