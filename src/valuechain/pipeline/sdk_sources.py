"""MCPJam SDK results as import sources: the translator handed derive's matcher, and the
streaming reporter's bodies saved one a file joined into one source (docs/spec/mcpjam-sdk.md §2)."""

from __future__ import annotations

import json
import os
import stat
import time
from collections.abc import Sequence
from pathlib import Path

from valuechain.contract.matching import MatchOptions, ToolCall, ToolCallMatch
from valuechain.derive import evaluate_tool_calls
from valuechain.ingest.mcpjam import SdkTranslator, looks_like_sdk

__all__ = ["SDK_RESULTS", "received_ns", "reporter_runs", "sdk_results_for"]


def _sdk_matcher(
    expected: Sequence[ToolCall], actual: Sequence[ToolCall], options: MatchOptions, negative: bool
) -> ToolCallMatch:
    return evaluate_tool_calls(expected, actual, options, is_negative_test=negative)


# MCPJam SDK results are graded by derive's matcher as they are translated (ingest cannot
# import derive: the pipeline hands it over)
SDK_RESULTS = SdkTranslator(_sdk_matcher)


def sdk_results_for(path: Path) -> SdkTranslator:
    """The translator for SDK results read from ``path``: received when `received_ns` says."""
    return SDK_RESULTS.received(received_ns(path))


def received_ns(path: Path) -> int | None:
    """When the source was received: the start of an MCPJam SDK run whose payload says no
    time (docs/spec/mcpjam-sdk.md §4.1) — a file's modification time; a pipe's, now; None when
    the file cannot be looked at (its import says why)."""
    try:
        status = path.stat()
    except OSError:
        return None
    return status.st_mtime_ns if stat.S_ISREG(status.st_mode) else time.time_ns()


def reporter_runs(files: list[Path], tmp: Path) -> list[tuple[Path, str | None]]:
    """The files to import, each with its ledger name (None: its own path). The MCPJam SDK
    streaming reporter's bodies saved one a file (``runs/start``, ``runs/iterations`` …,
    ``runs/finalize``, in name order in one folder) are one run: they are joined, as NDJSON,
    into one source named for the first (docs/spec/mcpjam-sdk.md §2); a re-import of the same
    files joins the same bytes, so it changes nothing."""
    out: list[tuple[Path, str | None]] = []
    group: list[Path] = []

    def close() -> None:
        if len(group) <= 1:
            out.extend((p, None) for p in group)
        else:
            joined = tmp / f"{len(out)}.ndjson"
            joined.write_bytes(b"".join(p.read_bytes().strip() + b"\n" for p in group))
            first = group[0].stat()  # received when its first body was (`received_ns`)
            os.utime(joined, ns=(first.st_atime_ns, first.st_mtime_ns))
            out.append((joined, f"{group[0]} (+{len(group) - 1} reporter bodies)"))
        group.clear()

    for path in files:
        kind = _reporter_body(path)
        if kind == "start" or kind is None or (group and path.parent != group[0].parent):
            close()
        if kind is None:
            out.append((path, None))
            continue
        if not group and kind != "start":
            out.append((path, None))
            continue
        group.append(path)
        if kind == "finalize":
            close()
    close()
    return out


_BODY_BYTES = 16 << 20  # a reporter body is one chunk of ≤ 1 MB results; larger: no body


def _reporter_body(path: Path) -> str | None:
    """``start`` / ``iterations`` / ``finalize`` for a file holding one streaming-reporter
    body (sdk/src/report-eval-results.ts ``startEvalRun`` … ``finalizeEvalRun``), else None."""
    try:
        if not path.is_file() or path.stat().st_size > _BODY_BYTES:
            return None
        with path.open("rb") as handle:
            head = handle.read(4096)
        if not looks_like_sdk(head) and b'"runId"' not in head:
            return None
        body = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return None
    if not isinstance(body, dict) or "resourceSpans" in body:
        return None
    if "suiteName" in body and "results" not in body:
        return "start"
    if "runId" in body and isinstance(body.get("results"), list):
        return "iterations"
    if "runId" in body and "externalRunId" in body and "results" not in body:
        return "finalize"
    return None
