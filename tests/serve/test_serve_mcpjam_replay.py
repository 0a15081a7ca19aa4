"""The captured request bodies of both @mcpjam/sdk generations replayed to ``valuechain
serve`` with ``requests``, in the order the SDK sent them (the 6.x SDK needs a source build,
so its bodies are replayed rather than run): the streaming reporter's start → iterations
(the runId serve answered substituted for the sink's) → finalize, and both suite reports.
The store then holds the runs ``valuechain import`` makes of the same captured files."""

from __future__ import annotations

from pathlib import Path

import pytest
from serve_harness import MCPJAM, Served, Start, imported_runs, sdk_runs

GENERATIONS = ["1.14.0", "repo-6d550c0"]
CAPTURED_RUN_ID = b'"runId":"run_fixture_1"'


def route(body: Path) -> str:
    """``003-api_v1_projects_default_eval-ingest_runs_iterations.json`` →
    ``/api/v1/projects/default/eval-ingest/runs/iterations`` (the sink's naming)."""
    return "/" + body.stem.split("-", 1)[1].replace("_", "/")


def replay_reporter(served: Served, folder: Path) -> None:
    start, *middle, finalize = sorted(folder.glob("0*.json"))
    assert route(start).endswith("/runs/start") and route(finalize).endswith("/runs/finalize")
    answer = served.post(route(start), start.read_bytes())
    assert answer.status_code == 200, answer.text
    run_id = answer.json()["runId"]
    recorded = 0
    for body in [*middle, finalize]:
        data = body.read_bytes()
        assert data.count(CAPTURED_RUN_ID) == 1, body.name
        data = data.replace(CAPTURED_RUN_ID, f'"runId":"{run_id}"'.encode())
        answer = served.post(route(body), data)
        assert answer.status_code == 200, (body.name, answer.text)
        reply = answer.json()
        if body is finalize:
            assert reply["runId"] == run_id and reply["summary"]["total"] == recorded
        else:
            assert reply["skipped"] == 0
            recorded += reply["inserted"]
            assert reply["total"] == recorded


@pytest.mark.slow
@pytest.mark.parametrize("generation", GENERATIONS)
def test_replayed_bodies_are_the_imported_runs(
    generation: str, serve: Start, store: Path, tmp_path: Path
) -> None:
    captured = MCPJAM / generation / "captured"
    suites = [f for s in ("suite-model-a", "suite-model-b") for f in (captured / s).glob("0*")]
    served = serve(store)
    replay_reporter(served, captured / "reporter")
    for report in suites:
        answer = served.post(route(report), report.read_bytes())
        assert answer.status_code == 200, answer.text
        assert answer.json()["ok"] is True
    assert served.stop() == 0

    live = sdk_runs(store)
    expected = imported_runs(tmp_path, captured / "reporter", *suites)
    assert len(live) == len(expected) == 3
    assert [len(run) for run in live] == [len(run) for run in expected]
    assert live == expected
