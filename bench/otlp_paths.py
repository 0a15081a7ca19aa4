"""The OTLP/JSON decode paths side by side on the same exports, one core, decode only.

The question this answers (issue 43.2): does each fast path earn its lines? Each export is
decoded by every path a ``DecodeOptions`` can force:

- ``native``     pyarrow.json + Arrow compute for every part and document (the default)
- ``msgspec``    the msgspec fast path (``native=False``), the reference for what it refuses
- ``reference``  the reference decoder alone (``fast=False``), on a sample of the NDJSON

on four exports of the same spans — NDJSON and one large document, each with content and
redacted — and on trial-sized single documents (~24 KB, one trace each, as an SDK reporter
writes them) decoded one by one, as the import decodes a folder of them on its own.
``$BENCH_OTLP_SMALL`` sets how many of those (default 300).

Measured (40 MB exports, CPU seconds on a loaded 2-core machine): on the four large exports
msgspec took 1.15-1.4x the native path's CPU, the reference 2.5-3x; on 300 trial documents the
native path took 16.6 s, msgspec 2.1, the reference 3.0 — so msgspec stays, for small files
(an import of 500 trial files took ~3.4 CPU s with it and ~7 without).
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

from bench.common import OUT, console
from bench.ingest import MB, _config
from bench.ingest_cpu import Measured, measure, table
from valuechain.ingest.decode import DecodeOptions, decode_export
from valuechain.synth import write_export

SMALL = int(os.environ.get("BENCH_OTLP_SMALL", "300"))
PATHS = {
    "native": DecodeOptions(workers=0),
    "msgspec": DecodeOptions(workers=0, native=False),
    "reference": DecodeOptions(workers=0, fast=False),
}


def _export(size_mb: int, *, ndjson: bool, redacted: bool) -> Path:
    OUT.mkdir(exist_ok=True)
    path = OUT / f"otlp-{size_mb}mb-{'ndjson' if ndjson else 'doc'}-{int(redacted)}.bin"
    if not path.exists():
        write_export(path, replace(_config(size_mb), redacted=redacted), ndjson=ndjson)
    return path


def _small_documents(ndjson: Path) -> list[bytes]:
    """The first ``SMALL`` lines of an NDJSON export, each a one-trace document of its own
    (~24 KB, as the SDK reporter writes a trial's trace)."""
    out: list[bytes] = []
    with ndjson.open("rb") as lines:
        for line in lines:
            out.append(line.rstrip(b"\n"))
            if len(out) == SMALL:
                break
    return out


def _case(name: str, bodies: list[bytes], source: str, options: DecodeOptions) -> Measured:
    """Each of ``bodies`` decoded as a source of its own; prints which path took its records."""
    taken = [0, 0]

    def decode() -> int:
        outs = [decode_export(body, source, options) for body in bodies]
        taken[:] = [sum(o.native_records for o in outs), sum(o.fast_records for o in outs)]
        return sum(o.span_count for o in outs)

    case = measure(name, decode, sum(map(len, bodies)) / MB)
    console.print(
        f"{case.name}: {case.seconds:.2f} s, {case.items_per_s:,.0f} spans/s "
        f"(records taken: native {taken[0]}, msgspec {taken[1]}, the rest the reference)"
    )
    return case


def run(size_mb: int = 50) -> list[Measured]:
    cases: list[Measured] = []
    for ndjson in (True, False):
        for redacted in (False, True):
            path = _export(size_mb, ndjson=ndjson, redacted=redacted)
            data = path.read_bytes()
            label = f"{'NDJSON' if ndjson else 'document'} {'redacted' if redacted else 'content'}"
            for name, options in PATHS.items():
                sample = data
                if name == "reference" and ndjson:  # the reference is ~10x slower: a sample
                    lines = data.splitlines(keepends=True)
                    sample = b"".join(lines[: max(1, len(lines) // 10)])
                cases.append(_case(f"{label} · {name}", [sample], path.name, options))
    small = _small_documents(_export(size_mb, ndjson=True, redacted=False))
    small_paths = {
        **PATHS,
        # what the import does with a small file (`pipeline.small_files`): msgspec first
        "native, documents to msgspec": DecodeOptions(workers=0, native_parts=False),
    }
    for name, options in small_paths.items():
        cases.append(_case(f"{len(small)} trial documents · {name}", small, "t.json", options))
    table("OTLP/JSON decode paths (one core, decode only)", cases, baseline=cases[0].name)
    return cases
