"""ingest/bytes/compression.py: gzip (several members) and zstd (native streams, legacy records)
under the size cap; a cut stream keeps what was decompressed (TRACE-FORMAT §1.8 step 1, §5.3).
"""

from __future__ import annotations

import gzip
import random
import struct
from pathlib import Path
from types import SimpleNamespace

import pytest
from ingest_builders import SMALL, length_prefixed, ndjson_lines, three_spans

from valuechain.ingest.bytes.compression import Unpacker, zstd_compress
from valuechain.ingest.decode import decode_export
from valuechain.synth import write_export


def test_multi_member_gzip_is_read_whole(otlp: SimpleNamespace) -> None:
    lines = ndjson_lines(otlp, 4)
    data = gzip.compress(lines[0] + b"\n" + lines[1] + b"\n") + gzip.compress(
        lines[2] + b"\n" + lines[3]
    )
    out = decode_export(data, "m.gz")
    assert (out.status, out.span_count, out.compression) == ("ok", 4, "gzip")


@pytest.mark.parametrize("piece", [64, 1 << 20])
def test_every_gzip_member_comes_out_once(piece: int) -> None:
    """A member whose output overflows one decompressor call ends with the next member in
    zlib's ``unconsumed_tail`` and ``unused_data`` both: it was inflated twice."""
    first, second = b"\x00" * ((1 << 20) + 7), b"a" * ((1 << 20) + 5)
    blob = gzip.compress(first) + gzip.compress(second) + gzip.compress(b"end")
    unpacker = Unpacker([blob[i : i + piece] for i in range(0, len(blob), piece)])
    assert b"".join(unpacker) == first + second + b"end"
    assert unpacker.problem is None
    assert unpacker.bytes_out == len(first) + len(second) + 3


def test_truncated_zstd_keeps_the_complete_records(tmp_path: Path) -> None:
    native = write_export(tmp_path / "a.zst", SMALL, ndjson=True, zstd="native").path
    whole = decode_export(native.read_bytes(), "a")
    data = native.read_bytes()
    cut = decode_export(data[: len(data) * 2 // 3], "a")
    assert cut.status == "partial"
    assert 0 < cut.span_count < whole.span_count
    assert cut.issue_counts()["E_TRUNCATED_COMPRESSION"] == 1
    legacy = write_export(tmp_path / "b.bin", SMALL, zstd="legacy").path.read_bytes()
    (size,) = struct.unpack_from(">I", legacy)
    first = legacy[: 4 + size]
    broken = first + struct.pack(">I", 40) + zstd_compress(random.Random(0).randbytes(1000))[:40]
    decoded = decode_export(broken, "b")
    assert decoded.status == "partial"
    assert decoded.issue_counts()["E_TRUNCATED_COMPRESSION"] == 1
    assert decoded.accounting.records_ingested == 1


def _gzip(data: bytes) -> bytes:
    return gzip.compress(data)


def _zstd_legacy(data: bytes) -> bytes:
    return length_prefixed(zstd_compress(data))


# A stream cut before anything whole came out: rejected for the cut, never "the input is empty"
@pytest.mark.parametrize("compress", [_gzip, zstd_compress, _zstd_legacy])
@pytest.mark.parametrize("keep", [10, 100, 0.5])
@pytest.mark.parametrize("body", ["document", "ndjson"])
def test_a_stream_cut_before_any_record_is_a_truncated_compression(
    otlp: SimpleNamespace, compress: object, keep: float, body: str
) -> None:
    raw = three_spans(otlp) if body == "document" else b"\n".join(ndjson_lines(otlp, 3))
    assert callable(compress)
    data = compress(raw)
    cut = data[: int(len(data) * keep) if keep < 1 else int(keep)]
    out = decode_export(cut, "cut.out")
    assert out.status == "rejected"
    assert out.rejection is not None and out.rejection.code == "E_TRUNCATED_COMPRESSION"
    assert "empty" not in str(out.rejection)
    assert "ends early" in str(out.rejection) or "cut short" in str(out.rejection)
    assert out.issue_counts() == {"E_TRUNCATED_COMPRESSION": 1}


def test_a_cut_document_keeps_the_salvage_hint(otlp: SimpleNamespace) -> None:
    data = gzip.compress(three_spans(otlp))
    cut = decode_export(data[: len(data) - 12], "cut.json.gz")
    assert cut.rejection is not None and cut.rejection.code == "E_TRUNCATED_COMPRESSION"
    assert "the gzip stream ends early" in cut.rejection.problem
    assert "--salvage" in str(cut.rejection)


def test_gzip_streaming_matches_the_one_shot_decompressor(otlp: SimpleNamespace) -> None:
    data = gzip.compress(otlp.ndjson(*[otlp.request(otlp.span(n)) for n in range(50)]))
    for blob in (data, data + b"\x00\x00" + data, data[:-7], data + b"junk"):
        one = Unpacker([blob], 10_000)  # the whole input in one piece
        data_one = b"".join(one)
        stream = Unpacker([blob[i : i + 100] for i in range(0, len(blob), 100)], 10_000)
        assert b"".join(stream) == data_one
        assert (stream.problem, stream.message) == (one.problem, one.message)
