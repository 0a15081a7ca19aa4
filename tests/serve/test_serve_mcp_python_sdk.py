"""The MCP Python SDK's built-in tracing exporting live to ``valuechain serve``: the session
of fixtures/producers/mcp-python-sdk (``session_wrapped``: a passing call, an ``isError``
result, a JSON-RPC error, under one application span) becomes the one trial its README and
golden.json pin, as if the captured file had been imported."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from serve_harness import PRODUCERS, Start, env
from test_producers import _observed  # the chain query test_producers pins goldens with

from valuechain.store import Database

SESSION = Path(__file__).with_name("mcp_live_session.py")


@pytest.mark.slow
def test_live_session_is_the_pinned_trial(serve: Start, store: Path) -> None:
    served = serve(store)
    run = subprocess.run(
        [sys.executable, str(SESSION), f"{served.url}/v1/traces"],
        capture_output=True,
        text=True,
        env=env(),
        timeout=120,
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    exports = run.stdout.splitlines()
    assert exports and all(line.endswith(": SUCCESS") for line in exports), exports
    assert served.stop() == 0

    golden = json.loads((PRODUCERS / "mcp-python-sdk" / "golden.json").read_text())
    with Database(store) as db:
        assert _observed(db) == golden["session_wrapped.pb"]
        # one trace: the session span and the client and server spans of every request
        (traces,) = db.con.execute("SELECT count(DISTINCT trace_id) FROM core.spans").fetchone()
    assert traces == 1
