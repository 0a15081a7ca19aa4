"""One export's bytes → span tables, issues and accounting (pure; TRACE-FORMAT §1.8, §5).

``decode_export`` is the library entry point behind ``valuechain.decode``: it takes bytes (or an
already-parsed request) and a source name, and returns a ``DecodedSource``. It never touches
the store or the file system. A source that cannot be imported at all comes back with
``status == "rejected"`` and a ``rejection`` error that names the place and the fix.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import orjson

from valuechain.ingest.bytes import json_values
from valuechain.ingest.bytes.items import SPANS, DocumentRefused
from valuechain.ingest.mcpjam import SNIFF_BYTES, SdkTranslator, looks_like_sdk
from valuechain.ingest.otlp.scalars import scrub_surrogates
from valuechain.ingest.source.decoded import DecodedSource, DecodeOptions
from valuechain.ingest.source.merge import SourceMerger
from valuechain.ingest.source.read import READ_CHUNK
from valuechain.ingest.source.records import RecordDecoder
from valuechain.ingest.source.stream import SourceStream

__all__ = ["DecodeOptions", "DecodedSource", "decode_export"]


def decode_export(
    data: bytes | dict[str, Any],
    source: str = "<memory>",
    options: DecodeOptions | None = None,
    *,
    sdk: SdkTranslator | None = None,
) -> DecodedSource:
    """Decode one export (bytes of a file, or one parsed request) into span tables; with
    ``sdk``, MCPJam SDK results are translated first, as the import does
    (docs/spec/mcpjam-sdk.md)."""
    options = options or DecodeOptions()
    if isinstance(data, dict) and sdk is not None:
        encoded = _sdk_bytes(data)
        if encoded is not None:
            data = encoded
    if isinstance(data, dict):
        value = json_values.Value(data, 1, 0)
        try:
            orjson.dumps(data)
        except TypeError:  # e.g. lone surrogates in a caller-built dict (§5.2 W_INVALID_UTF8)
            value.obj, value.invalid_utf8 = scrub_surrogates(data)
        part = RecordDecoder(options)
        part.run_values([value])
        merger = SourceMerger(source, options, keep=True)
        merger.merge(part.result())
        return merger.finish()
    documents = SPANS
    while True:
        try:
            return _streamed(data, source, options, documents=documents, sdk=sdk)
        except DocumentRefused as refused:  # not in those parts: in whole items, or whole
            documents = refused.again


def _sdk_bytes(data: dict[str, Any]) -> bytes | None:
    """A parsed SDK payload's bytes (the translator reads bytes); None for anything else."""
    try:
        encoded = orjson.dumps(data)
    except TypeError:
        return None
    return encoded if looks_like_sdk(encoded[:SNIFF_BYTES]) else None


def _streamed(
    data: bytes, source: str, options: DecodeOptions, *, documents: str, sdk: SdkTranslator | None
) -> DecodedSource:
    stream = SourceStream(_pieces(data), source, options, documents=documents, sdk=sdk)
    stream.keep = True
    for _ in stream:
        pass
    return stream.result


def _pieces(data: bytes) -> Iterator[bytes]:
    """``data`` a read's worth at a time, as the import reads a file: the framer keeps only
    what it has not cut yet, instead of moving the rest of the whole input after each part."""
    view = memoryview(data)
    for start in range(0, len(data), READ_CHUNK):
        yield bytes(view[start : start + READ_CHUNK])
