"""Exports whose traces are split across files, as a collector's rotation or several
collectors write them: the scale-out path must assemble each trace before deriving it."""

from __future__ import annotations

import copy
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import orjson

from valuechain.synth.config import SynthConfig
from valuechain.synth.runs import otlp_request, traces
from valuechain.synth.suite import build_suite


def split_requests(
    requests: Iterable[dict[str, Any]], files: int
) -> Iterator[tuple[int, dict[str, Any]]]:
    """Each OTLP request's spans dealt over ``files`` requests: span ``j`` of the ``k``-th
    request goes to file ``(k + j) % files``, so a trial root and its tool spans land in
    different files. Yields (file, request) for every non-empty part; resources and scopes
    are kept with each part."""
    for k, request in enumerate(requests):
        parts: list[dict[str, Any]] = [{"resourceSpans": []} for _ in range(files)]
        for rs in request.get("resourceSpans", []):
            for ss in rs.get("scopeSpans", []):
                dealt: list[list[Any]] = [[] for _ in range(files)]
                for j, span in enumerate(ss.get("spans", [])):
                    dealt[(k + j) % files].append(span)
                for f, spans in enumerate(dealt):
                    if spans:
                        shell = {key: value for key, value in rs.items() if key != "scopeSpans"}
                        scope = {key: value for key, value in ss.items() if key != "spans"}
                        shell["scopeSpans"] = [{**copy.deepcopy(scope), "spans": spans}]
                        parts[f]["resourceSpans"].append(shell)
        for f, part in enumerate(parts):
            if part["resourceSpans"]:
                yield f, part


def write_split_export(folder: str | Path, config: SynthConfig, files: int) -> list[Path]:
    """The export of ``config`` as ``files`` NDJSON files below ``folder`` (created), each
    trace's spans dealt over them (`split_requests`); the paths written."""
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / f"part-{f:03d}.otlp.jsonl" for f in range(files)]
    suite = build_suite(config)
    handles = [p.open("wb") for p in paths]
    try:
        requests = (otlp_request(suite, trace) for _, trace in traces(config, suite))
        for f, request in split_requests(requests, files):
            handles[f].write(orjson.dumps(request) + b"\n")
    finally:
        for handle in handles:
            handle.close()
    return paths
