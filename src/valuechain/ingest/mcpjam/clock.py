"""When an SDK run started: what its trials' span offsets count from (docs/spec/mcpjam-sdk.md §4).

SDK payloads carry no wall-clock time field: trace span times are ms offsets from the prompt's
start. The SDK's own run id holds one, though: when the caller passes none, the SDK makes it
as ``sdk-${Date.now()}-${random}`` (``generateExternalRunId``, sdk/src/report-eval-results.ts
in inspector 6d550c02c and in 1.14.0's dist/index.js), and each result it reports carries
``<externalRunId>-<n>`` as its ``externalIterationId``. So, in order:

1. the run's ``externalRunId`` (a report or ``runs/start`` body), when the SDK made it;
2. else the earliest such stamp in its results' ``externalIterationId`` (loose results);
3. else when the source was received (the importer passes the file's modification time);
4. else ``BASE_NS``, a fixed instant (only a caller translating bytes with no file behind them).

1 and 2 depend only on the bytes; 3 is the trade-off: runs without an SDK-made id order by
when their file was written, and the same bytes written again later move.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

# epoch ms between 2000-01-01 and 2100-01-01: Date.now() in any plausible run
_EARLIEST_MS, _LATEST_MS = 946_684_800_000, 4_102_444_800_000
_SDK_RUN_ID = re.compile(r"^sdk-(?P<ms>[0-9]{12,13})-[a-z0-9]+(?:-[0-9]+)?$")
_MS = 1_000_000
BASE_NS = 1_000_000_000_000_000_000  # 2001-09-09T01:46:40Z: no time known at all


def stamp_ms(value: Any) -> int | None:
    """The ``Date.now()`` of an SDK-made run id (or of an iteration id made from one)."""
    if not isinstance(value, str):
        return None
    match = _SDK_RUN_ID.match(value)
    if match is None:
        return None
    ms = int(match["ms"])
    return ms if _EARLIEST_MS <= ms < _LATEST_MS else None


def run_start_ns(
    external_run_id: str | None, results: Iterable[dict[str, Any]], received_ns: int | None
) -> int:
    """The run's start in ns since the epoch (the module's rules 1–4, in order)."""
    ms = stamp_ms(external_run_id)
    if ms is None:
        stamps = [stamp_ms(r.get("externalIterationId")) for r in results]
        ms = min((s for s in stamps if s is not None), default=None)
    if ms is not None:
        return ms * _MS
    return received_ns if received_ns is not None else BASE_NS
