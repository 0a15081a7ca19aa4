"""MCPJam SDK results decoded as parts: a job of trials translated and decoded on one worker.

A source of SDK results is read whole in the importing process (`SdkTranslator.read`: one
parse, its runs and their keys), then cut into jobs of consecutive trials of one run. A
worker translates its job into OTLP requests, one a trial (docs/spec/mcpjam-sdk.md §4), and
decodes them at once, so translation runs on the workers, in parallel, and only the decoded
tables cross back. Where the native path takes them, the requests are built straight into
the table Arrow's JSON reader would make of their NDJSON lines (`mcpjam.columns`), and
decoded as it (`native.decode`): writing the text and reading it again cost more than the
rest of the translation. Else their NDJSON lines are written and decoded as the lines of a
framed source are (`decode_part`).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from valuechain.ingest.bytes import framing
from valuechain.ingest.mcpjam import SdkTranslator, TrialJob
from valuechain.ingest.mcpjam.columns import requests_table
from valuechain.ingest.mcpjam.payloads import Quarantined
from valuechain.ingest.mcpjam.translate import ndjson
from valuechain.ingest.otlp import native
from valuechain.ingest.source.decoded import DecodeOptions
from valuechain.ingest.source.native_parts import native_result
from valuechain.ingest.source.parts import decode_part
from valuechain.ingest.source.records import PartResult

# Results (as JSON) per job, as a share of a part (`DecodeOptions.batch_bytes`): their
# translation is about 1.5 times as large, so a job's lines are about a part, as a framed
# source's. Jobs of 1 MiB (16 for 3,000 trials) cost more CPU than jobs of 4 MiB (5): 680 vs
# 590-610 µs/trial to import without derive, two workers (`python -m bench sdk-results`'s
# report; load 5-7 on 2 cores)
JOB_SHARE_OF_PART = 2


def job_bytes(options: DecodeOptions) -> int:
    """How many bytes of results one job takes."""
    return max(1, options.batch_bytes // JOB_SHARE_OF_PART)


@dataclass(slots=True)
class SdkPart:
    """What one job became: its decoded part, the results it could not grade, and the size
    of its NDJSON lines (positions in the translated source are counted across jobs)."""

    result: PartResult | None  # None: no trial to decode
    problems: list[Quarantined]
    size: int
    lines: int


def sdk_part(translator: SdkTranslator, job: TrialJob, options: DecodeOptions) -> SdkPart:
    """Translate one job and decode its requests (the unit of work of the decode pool); issue
    positions are the job's own, from byte 0 and line 1 (`place` moves them). The cyclic
    garbage collector is paused, as `decode_part` pauses it: translation allocates many
    short-lived acyclic objects, all gone (with `_sdk_part`'s frame) before it runs again —
    else its next pass would walk them all."""
    with collector_paused():
        return _sdk_part(translator, job, options)


def _sdk_part(translator: SdkTranslator, job: TrialJob, options: DecodeOptions) -> SdkPart:
    requests, problems = translator.job_spans(job)
    if not requests:  # every trial's match options refused
        return SdkPart(None, problems, 0, 0)
    resource = job.facts.resource
    if options.native and options.fast and options.native_parts:
        built = requests_table(resource, requests)
        threshold = options.large_value_threshold
        decoded = None if built is None else native.decode(built.table, threshold)
        if built is not None and isinstance(decoded, native.Decoded):  # as `decode_part`
            result = native_result(decoded, len(requests))  # decodes their lines
            return SdkPart(result, problems, built.size, len(requests))
    data = ndjson(resource, requests)
    del requests
    result = decode_part(framing.Lines(data, 0, 1, True), options)
    return SdkPart(result, problems, len(data), data.count(b"\n"))


def place(result: PartResult, offset: int, first_line: int) -> PartResult:
    """A job's result with its issues at their place in the translated source: the job's
    NDJSON starts at byte ``offset``, line ``first_line``."""
    for issue in result.issues:
        if issue.byte_offset is not None:
            issue.byte_offset += offset
        if issue.line is not None:
            issue.line += first_line - 1
    if result.invalid_utf8_at is not None:
        result.invalid_utf8_at += offset
    return result


@contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic garbage collector off meanwhile (on again after, if it was on)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
