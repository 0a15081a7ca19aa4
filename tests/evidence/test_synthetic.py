"""Synthetic exports (`valuechain.synth`) carry the chain CONTRACT §2 derives for each trial:
re-deriving from the §3.7 evidence reproduces it for every trial, content or not."""

from __future__ import annotations

import json
from typing import Any

import orjson
import pytest

from valuechain.derive import derive_chain
from valuechain.evidence.trials import TrialEvidence, build_trials
from valuechain.ingest.decode import decode_export
from valuechain.synth import SynthConfig, generate_requests


def _evidence(redacted: bool) -> TrialEvidence:
    config = SynthConfig(runs=2, cases=8, models=3, reps=2, seed=11, redacted=redacted)
    data = b"".join(orjson.dumps(r) + b"\n" for r in generate_requests(config))
    decoded = decode_export(data, "synth.jsonl")
    return build_trials(
        decoded.tables["spans"], decoded.tables["attributes"], source_runs={0: decoded.sha256}
    )


def _persisted(ev: TrialEvidence) -> list[dict[str, Any]]:
    chains: list[dict[str, Any]] = [
        {"stageResults": [], **{k: v for k, v in o.items() if k == "analyzer_version"}}
        for o in ev.producer_outcome.to_pylist()
    ]
    for row in ev.producer_chain.to_pylist():
        wire = {"stage": row["stage"], "state": row["state"], "reason": row["reason"]}
        if row["evidence"] is not None:
            wire["evidence"] = json.loads(row["evidence"])
        chains[row["trial_index"]]["stageResults"].append(wire)
    for chain, outcome in zip(chains, ev.producer_outcome.to_pylist(), strict=True):
        version = chain.pop("analyzer_version")
        if outcome["first_failed_stage"] is not None:
            chain["firstFailedStage"] = outcome["first_failed_stage"]
        if outcome["failure_category"] is not None:
            chain["failureCategory"] = outcome["failure_category"]
        chain["stageAnalyzerVersion"] = version
    return chains


@pytest.mark.parametrize("redacted", [False, True])
def test_derived_chains_equal_the_generated_ones(redacted: bool) -> None:
    ev = _evidence(redacted)
    assert ev.trials.num_rows == 96 and ev.issues.num_rows == 0
    derived = [derive_chain(i).to_wire() for i in ev.inputs if i is not None]
    assert derived == _persisted(ev)
