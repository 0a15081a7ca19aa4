"""Binary framing read as its bytes arrive: the collector's length-prefixed records (§1.8 step
2) and the top-level fields of one protobuf request — what ``framing`` needs to cut records and
to tell, early and without holding the rest, that a would-be request is none."""

from __future__ import annotations

import struct
from collections.abc import Iterator

from valuechain.ingest.bytes.compression import ZSTD_MAGIC

__all__ = [
    "MAX_RECORD_BYTES",
    "PREFIX",
    "PROTO_FIRST",
    "TopLevel",
    "iter_records",
    "length_prefixed",
]

MAX_RECORD_BYTES = 1 << 30  # a longer length prefix is corrupt framing, not a record
PREFIX = struct.Struct(">I")
PROTO_FIRST = 0x0A  # field 1 (resource_spans), wire type 2: how every trace request starts


class TopLevel:
    """The top-level fields of a protobuf message, walked as its bytes arrive: ``broken``
    once one is a field no parser takes (field number 0, wire type 6 or 7), whatever
    follows. A group (wire types 3, 4) or an over-long varint ends the walk, undecided."""

    def __init__(self) -> None:
        self.pos = 0  # where the next field starts
        self.done = False

    def broken(self, data: bytes | bytearray) -> bool:
        while not self.done:
            tag, pos = _varint(data, self.pos)
            if pos < 0:
                return False
            field, wire = tag >> 3, tag & 7
            if field == 0 or wire in (6, 7):
                self.done = True
                return True
            if wire in (3, 4):
                self.done = True
            elif wire == 0:
                pos = _varint(data, pos)[1]
                if pos < 0:
                    return False
            elif wire == 2:
                size, pos = _varint(data, pos)
                if pos < 0:
                    return False
                pos += size
            else:
                pos += 8 if wire == 1 else 4
            self.pos = pos
        return False


def _varint(data: bytes | bytearray, pos: int) -> tuple[int, int]:
    """The varint at ``pos`` and where it ends; (0, -1) when ``data`` ends first or it is longer
    than 10 bytes (then the walk is done)."""
    value = shift = 0
    for i in range(pos, min(len(data), pos + 10)):
        byte = data[i]
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, i + 1
        shift += 7
    return 0, -1


def length_prefixed(head: bytes) -> bool:
    """Whether ``head`` starts like the collector's length-prefixed framing (§1.8 step 2)."""
    if len(head) < 5:
        return False
    (size,) = PREFIX.unpack_from(head)
    if size == 0 or size > MAX_RECORD_BYTES:
        return False
    payload = head[4:8]
    looks = payload.startswith(ZSTD_MAGIC) or payload[0] in (PROTO_FIRST, 0x7B, 0x5B)
    # a bare request starts with 0x0A, i.e. a "length" of at least 167 MB: it needs the record to
    # fit in what was read, or a small length (< 16 MiB, first byte 0)
    return looks and (4 + size <= len(head) or head[0] == 0)


def iter_records(data: bytes, start: int) -> Iterator[tuple[int, int, int]]:
    """(offset of the prefix, payload start, payload end) of every record of a part; a cut
    last record has a payload end beyond ``len(data)`` (relative offsets)."""
    pos = 0
    while pos < len(data):
        if len(data) - pos < 4:
            yield pos, pos + 4, pos + 4
            return
        (size,) = PREFIX.unpack_from(data, pos)
        yield pos, pos + 4, pos + 4 + size
        pos += 4 + size
