"""JSON in UTF-16 or UTF-32 (what Windows PowerShell's ``>`` writes) is rejected naming its
encoding and the conversion, never as "binary data" or a broken record; UTF-8 with a BOM
imports (TRACE-FORMAT §1.8 step 3)."""

from __future__ import annotations

import codecs
from collections.abc import Iterator
from types import SimpleNamespace

import pytest

from valuechain.ingest.bytes.framing import Framer, Whole
from valuechain.ingest.bytes.recognise import wide_text
from valuechain.ingest.decode import decode_export
from valuechain.ingest.source.decoded import DecodeOptions

CASES = [
    # (encoding Python writes, what the rejection says, the iconv name in its hint)
    ("utf-16", "UTF-16 (little-endian, with a byte-order mark)", "iconv -f UTF-16 "),
    ("utf-16-le", "UTF-16 (little-endian, without a byte-order mark)", "iconv -f UTF-16LE "),
    ("utf-16-be", "UTF-16 (big-endian, without a byte-order mark)", "iconv -f UTF-16BE "),
    ("utf-32", "UTF-32 (little-endian, with a byte-order mark)", "iconv -f UTF-32 "),
    ("utf-32-be", "UTF-32 (big-endian, without a byte-order mark)", "iconv -f UTF-32BE "),
]


@pytest.mark.parametrize("batch_bytes", [None, 512], ids=["whole", "in-parts"])
@pytest.mark.parametrize(("encoding", "said", "iconv"), CASES, ids=[c[0] for c in CASES])
def test_utf16_and_utf32_are_named_with_the_conversion(
    otlp: SimpleNamespace, encoding: str, said: str, iconv: str, batch_bytes: int | None
) -> None:
    text = "\n".join(otlp.dumps(otlp.request(otlp.span(i))).decode() for i in range(1, 40))
    options = DecodeOptions() if batch_bytes is None else DecodeOptions(batch_bytes=batch_bytes)
    out = decode_export(text.encode(encoding), "export.json", options)
    assert out.status == "rejected" and out.rejection is not None
    assert out.rejection.code == "E_NOT_OTLP"
    assert out.rejection.problem == f"the input is {said}; OTLP/JSON is UTF-8"
    assert out.rejection.hint is not None and iconv in out.rejection.hint
    assert ("PowerShell" in out.rejection.hint) == encoding.startswith("utf-16")


def test_a_utf16_big_endian_bom_is_named() -> None:
    found = wide_text(codecs.BOM_UTF16_BE + '{"resourceSpans":[]}'.encode("utf-16-be"))
    assert found is not None and (found.encoding, found.endian, found.bom) == (
        "UTF-16",
        "big",
        True,
    )


def test_utf8_with_a_bom_imports(otlp: SimpleNamespace) -> None:
    out = decode_export(codecs.BOM_UTF8 + otlp.dumps(otlp.request(otlp.span(1))), "bom.json")
    assert out.status == "ok" and out.rejection is None


@pytest.mark.parametrize(
    "data",
    [
        b'{"resourceSpans":[]}',
        '{"k": "ünïcödé ✓"}'.encode(),
        bytes(range(256)) * 4,  # still "binary data"
        b"\x00\x00\x00\x05\x0a\x03abc",  # a length-prefixed record's start
        b"{\x00",  # one character is no evidence
    ],
    ids=["utf8-json", "utf8-non-ascii", "binary", "length-prefixed", "too-short"],
)
def test_other_inputs_are_not_taken_for_wide_text(data: bytes) -> None:
    assert wide_text(data) is None


def test_a_wide_input_is_read_no_further_than_its_first_batch() -> None:
    read: list[int] = []

    def endless() -> Iterator[bytes]:  # a UTF-16 stream that would never end
        chunk = '{"resourceSpans":[]}\n'.encode("utf-16")
        while len(read) < 1000:  # a bound, so that reading on fails instead of hanging
            read.append(len(chunk))
            yield chunk
        raise AssertionError("read on beyond the first batch")

    (part,) = Framer(endless(), batch_bytes=4096)
    assert isinstance(part, Whole) and wide_text(part.data) is not None
    assert sum(read) <= 4096 + 64
