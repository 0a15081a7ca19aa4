"""MCPJam SDK results as an import source (docs/mcpjam-sdk.md).

`SdkTranslator` turns a source whose first bytes are SDK results into OTLP NDJSON under the
`mcp.app.*` convention, upstream of the framer, so the translated bytes take the native
parallel decode path and every later stage reads them as any other export.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import PurePath

from valuechain.ingest.mcpjam.graders import Matcher
from valuechain.ingest.mcpjam.payloads import (
    SNIFF_BYTES,
    NotResults,
    Quarantined,
    looks_like_sdk,
    read_payload,
)
from valuechain.ingest.mcpjam.translate import translate

__all__ = [
    "SNIFF_BYTES",
    "Matcher",
    "SdkTranslator",
    "Translation",
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


@dataclass(frozen=True, slots=True)
class SdkTranslator:
    """Translates SDK results with the caller's tool-call matcher (CONTRACT §2.4)."""

    matcher: Matcher

    def __call__(self, data: bytes, source: str) -> Translation:
        try:
            payload = read_payload(data, PurePath(source).stem.split(".")[0] or "sdk-results")
        except NotResults as refused:
            return Translation(refused=refused)
        lines, problems = translate(payload.runs, self.matcher)
        return Translation(lines, [*payload.quarantined, *problems], runs=len(payload.runs))
