"""The published ``@mcpjam/sdk`` 1.14.0, run by node against ``valuechain serve`` as its
backend (MCPJAM_BASE_URL): the runs it reports live are in the store with the trials and
chains a ``valuechain import`` of the captured bodies of the same scenario gives
(fixtures/producers/mcpjam-sdk/1.14.0/captured/<scenario>) — compared per case, variant and
repetition, not by run ids or times.

The SDK is installed once by ``npm ci`` from the committed lockfile into a cache folder
(serve_harness.mcpjam_sdk_1_14). Skipped only without node/npm or without the registry.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from serve_harness import MCPJAM, Start, imported_runs, mcpjam_sdk_1_14, sdk_runs

CAPTURED = MCPJAM / "1.14.0" / "captured"


@pytest.fixture(scope="module")
def sdk_home() -> Path:
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("node and npm are needed to run @mcpjam/sdk")
    try:
        return mcpjam_sdk_1_14()
    except RuntimeError as exc:  # e.g. the registry is out of reach
        pytest.skip(f"@mcpjam/sdk 1.14.0 could not be installed: {exc}")


@pytest.fixture
def fake_llm(sdk_home: Path, tmp_path: Path) -> Iterator[str]:
    """harness/fake-llm.mjs, fresh for each scenario (its repetition counters start at 0);
    its port."""
    portfile = tmp_path / "llm.port"
    proc = subprocess.Popen(
        ["node", str(sdk_home / "harness" / "fake-llm.mjs"), str(portfile)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(300):
            if portfile.exists() and portfile.read_text().strip():
                break
            time.sleep(0.05)
        yield portfile.read_text().strip()
    finally:
        proc.terminate()
        proc.wait(10)


@pytest.mark.slow
@pytest.mark.parametrize("scenario", ["reporter", "suite-model-a"])
def test_sdk_runs_reported_live_are_the_captured_runs(
    scenario: str, sdk_home: Path, fake_llm: str, serve: Start, store: Path, tmp_path: Path
) -> None:
    served = serve(store)
    environment = {
        k: v for k, v in os.environ.items() if not k.startswith(("MCPJAM_", "NODE_OPTIONS"))
    } | {
        "LLM_PORT": fake_llm,
        "MCPJAM_BASE_URL": served.url,
        "MCPJAM_API_KEY": "mcpjam_fixture_not_a_key",
        "MCPJAM_TELEMETRY_DISABLED": "1",
        "DO_NOT_TRACK": "1",
    }
    run = subprocess.run(
        ["node", "run.mjs", scenario],
        cwd=sdk_home / "1.14.0",
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert served.stop() == 0

    live = sdk_runs(store)
    captured = CAPTURED / scenario
    sources = [captured] if scenario == "reporter" else sorted(captured.glob("0*.json"))
    expected = imported_runs(tmp_path, *sources)
    assert len(live) == len(expected) == 1
    assert len(live[0]) == len(expected[0]) > 0  # the same trial count
    assert live == expected
