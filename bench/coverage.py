"""`coverage` over an imported store of 10,000 trials, against two same-run floors.

One synthetic export (10 runs × 25 cases × 4 models × 10 repetitions, redacted; every trial
carries a matcher, two gating predicates and a goal judge) is imported and derived once.
Then, best of three each:
- ``chain counts``    the trial half alone: states per run and stage from ``stage_chain``
                      (``GROUP BY``), into a polars frame (floor)
- ``grader pivot``    the authoring half's input alone: the coverage keys of every grader
                      and trial-root span, one row per span (``core.attributes`` ⋈
                      ``core.spans``, pivoted with ``max``; the floor the ratios use)
- ``coverage``        ``Store.coverage()``: every suite's latest run, six links each
- ``coverage run``    ``Store.coverage(run=…)``: one run
- ``lint``            ``Store.coverage_lint()``
- ``json`` / ``table`` the verb's two outputs from those frames
Each is printed with its ratio to ``grader pivot`` (items: trials of the store); goal: the
verb's reads (``coverage`` + ``lint``) within 5× of it.
"""

from __future__ import annotations

import io
import time
from pathlib import Path

from rich.console import Console

import valuechain
from bench.common import OUT, Timing, console, report, timed
from valuechain.report.coverage import coverage_json, render_coverage
from valuechain.synth import SynthConfig, write_export

CONFIG = SynthConfig(runs=10, cases=25, models=4, reps=10, seed=19, redacted=True)
CHAIN_COUNTS = """
SELECT run_id, stage, state, count(*) AS n FROM main.stage_chain
WHERE source = 'derived' AND analyzer_version = 12 GROUP BY ALL
"""
KEYS = (
    "mcp.app.grader.kind",
    "mcp.app.grader.scorer_id",
    "mcp.app.grader.role",
    "mcp.app.grader.status",
    "mcp.app.grader.link",
    "mcp.app.predicate.type",
    "mcp.app.judge.name",
    "mcp.app.judge.pending_kind",
    "mcp.app.match.result.expected",
    "mcp.app.expect.tool_calls",
    "mcp.app.match.argument_matching",
)
GRADER_PIVOT = f"""
SELECT a.owner_row, {", ".join(f"max(a.string_value) FILTER (a.key = '{k}')" for k in KEYS)}
FROM core.spans s JOIN core.attributes a ON a.owner_type = 'span' AND a.owner_row = s.span_row
WHERE s.mcp_app_role IN ('grader', 'trial') AND a.key IN ({", ".join(f"'{k}'" for k in KEYS)})
GROUP BY a.owner_row
"""


def _store() -> Path:
    OUT.mkdir(exist_ok=True)
    export = OUT / "coverage-10000-trials.jsonl"
    store = OUT / "coverage-bench.duckdb"
    if not export.exists():
        write_export(export, CONFIG, ndjson=True)
    if not store.exists():
        start = time.perf_counter()
        with valuechain.open(store) as s:
            s.import_paths([export])
        console.print(f"imported and derived {export.name} in {time.perf_counter() - start:.1f} s")
    valuechain.open(store).close()  # a writable open (re)creates the views of this checkout
    return store


def run(size_mb: int) -> list[Timing]:
    del size_mb  # this suite is sized in trials
    with valuechain.open(_store(), read_only=True) as store:
        trials = int(store.sql("SELECT count(*) AS n FROM trials")["n"][0])
        run_id = str(store.sql("SELECT min(run_id) AS r FROM trials")["r"][0])
        links = store.coverage()
        lint = store.coverage_lint()

        def table() -> int:
            screen = Console(file=io.StringIO(), width=80, color_system=None)
            screen.print(render_coverage(links, lint))
            return trials

        cases = [
            ("chain counts", lambda: store.sql(CHAIN_COUNTS).height and trials),
            ("grader pivot", lambda: store.sql(GRADER_PIVOT).height and trials),
            ("coverage", lambda: store.coverage().height and trials),
            ("coverage run", lambda: store.coverage(run=run_id).height and trials),
            ("lint", lambda: store.coverage_lint().height * 0 + trials),
            ("json", lambda: len(coverage_json(links)) and trials),
            ("table", table),
        ]
        timings = [
            timed(name, fn, trials / 1e6, repeat=3, item_name="trials") for name, fn in cases
        ]
    report(f"coverage over {trials:,} trials (shared machine)", timings, "grader pivot")
    return timings
