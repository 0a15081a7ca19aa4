"""The demo's short history: one suite's weekly runs, comparable week to week, one regression.

The weekly series of the issue-tracker suite from `history` (one run group, three models),
six weeks at the current analyzer with one config revision and one case set throughout, so
every run joins one trend partition and any two are comparable; the server regresses in week
five and is fixed in week six. One NDJSON export, gzip, the same bytes for the same seed:
`fixtures/sample/demo-history.otlp.jsonl.gz`, which `valuechain demo` imports beside the
sample (fixtures/sample/README.md says how it was made).
"""

from __future__ import annotations

import gzip
from pathlib import Path

import orjson

from valuechain.synth.failures.trial import ScenarioCycle
from valuechain.synth.history import Timeline, plan_runs, root_keys, traces_of
from valuechain.synth.runs import otlp_request

WEEKS = 6
REGRESSION_WEEK = 5
TRACK = "weekly"


def demo_timeline() -> Timeline:
    """Six weeks, the current analyzer from the first, no config or case-set change (their
    weeks lie past the end), the regression in week five and its fix in week six."""
    never = WEEKS + 1
    return Timeline(WEEKS, upgrade=1, config=never, regression=REGRESSION_WEEK, case_set=never)


def write_demo_history(path: str | Path, *, seed: int = 0) -> list[str]:
    """Write the export to ``path`` (gzip, no time in its header: the same bytes each time);
    returns its run ids, oldest first."""
    cycle = ScenarioCycle(seed)
    run_ids: list[str] = []
    with (
        Path(path).open("wb") as raw,
        gzip.GzipFile(filename="", fileobj=raw, mode="wb", mtime=0) as file,
    ):
        for run in plan_runs(seed, demo_timeline()):
            if run.track.name != TRACK:
                continue
            for k, spans in enumerate(traces_of(seed, run, cycle)):
                file.write(orjson.dumps(otlp_request(run.suite, spans)) + b"\n")
                if k == 0:
                    run_ids.append(root_keys(spans)["mcp.app.run.id"])
    return run_ids
