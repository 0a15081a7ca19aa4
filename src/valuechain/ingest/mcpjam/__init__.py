"""MCPJam SDK results as an import source (docs/spec/mcpjam-sdk.md).

`SdkTranslator` turns a source whose first bytes are SDK results into OTLP NDJSON under the
`mcp.app.*` convention: `read` parses the source and groups it into runs (in the importing
process), then each `TrialJob` — consecutive trials of one run — is translated by
`translate_job` where its NDJSON lines are decoded, on a decode worker, so translation runs in
parallel and the translated bytes take the native decode path like any other export's lines.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import PurePath

from valuechain.ingest.mcpjam.graders import Matcher
from valuechain.ingest.mcpjam.otlp import Span
from valuechain.ingest.mcpjam.payloads import (
    SNIFF_BYTES,
    NotResults,
    Quarantined,
    SdkRun,
    looks_like_sdk,
    read_payload,
)
from valuechain.ingest.mcpjam.translate import (
    TrialJob,
    job_spans,
    translate_job,
    translate_runs,
    trial_jobs,
)

__all__ = [
    "SNIFF_BYTES",
    "Matcher",
    "SdkSource",
    "SdkTranslator",
    "Translation",
    "TrialJob",
    "looks_like_sdk",
]

ENCODING_FLAVOR = "mcpjam-sdk"


@dataclass(slots=True)
class Translation:
    """What one SDK source became: OTLP NDJSON, what was quarantined, or why it was refused."""

    data: bytes = b""
    quarantined: list[Quarantined] = field(default_factory=list)
    refused: NotResults | None = None
    runs: int = 0


@dataclass(slots=True)
class SdkSource:
    """An SDK source read: its runs, what was quarantined, or why it was refused."""

    runs: list[SdkRun] = field(default_factory=list)
    quarantined: list[Quarantined] = field(default_factory=list)
    refused: NotResults | None = None
    received_ns: int | None = None
    size: int = 0  # bytes read

    def jobs(self, job_bytes: int) -> Iterator[TrialJob]:
        """The runs' trials in jobs of about ``job_bytes`` of results; the runs let go of
        their results as the jobs are made."""
        results = sum(len(run.results) for run in self.runs)
        mean = self.size // results if results else 1
        return trial_jobs(self.runs, job_bytes, self.received_ns, result_bytes=max(1, mean))


@dataclass(frozen=True, slots=True)
class SdkTranslator:
    """Translates SDK results with the caller's tool-call matcher (CONTRACT §2.4)."""

    matcher: Matcher
    received_ns: int | None = None  # when the source was received (`clock.run_start_ns`)

    def received(self, ns: int | None) -> SdkTranslator:
        """This translator for a source received at ``ns`` (its file's modification time)."""
        return replace(self, received_ns=ns)

    def read(self, data: bytes | bytearray, source: str) -> SdkSource:
        """The source's runs (its bytes are not kept), or why it is no SDK payload."""
        size = len(data)
        try:
            payload = read_payload(data, PurePath(source).stem.split(".")[0] or "sdk-results")
        except NotResults as refused:
            return SdkSource(refused=refused)
        return SdkSource(payload.runs, payload.quarantined, received_ns=self.received_ns, size=size)

    def translate_job(self, job: TrialJob) -> tuple[bytes, list[Quarantined]]:
        """The job's NDJSON lines and the results that could not be graded."""
        return translate_job(job, self.matcher)

    def job_spans(self, job: TrialJob) -> tuple[list[list[Span]], list[Quarantined]]:
        """Each of the job's trials' spans (what its NDJSON line holds), and the results that
        could not be graded."""
        return job_spans(job, self.matcher)

    def __call__(self, data: bytes, source: str) -> Translation:
        """The whole source translated at once."""
        read = self.read(data, source)
        if read.refused is not None:
            return Translation(refused=read.refused)
        runs = len(read.runs)
        lines, problems = translate_runs(read.runs, self.matcher, self.received_ns)
        return Translation(lines, [*read.quarantined, *problems], runs=runs)
