"""A redacted export (TRACE-FORMAT §3.6) yields the same derivation inputs minus content."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import orjson

from valuechain.contract.derivation import PromptSummary, StageDerivationInput
from valuechain.derive import derive_chain
from valuechain.evidence.trials import TrialEvidence, build_trials
from valuechain.ingest.decode import decode_export
from valuechain.synth import SynthConfig, generate_requests


def _evidence(redacted: bool) -> TrialEvidence:
    config = SynthConfig(runs=1, cases=6, models=2, reps=2, seed=5, redacted=redacted)
    data = b"".join(orjson.dumps(r) + b"\n" for r in generate_requests(config))
    decoded = decode_export(data, "synth.jsonl")
    return build_trials(
        decoded.tables["spans"], decoded.tables["attributes"], source_runs={0: decoded.sha256}
    )


def _names_only(items: tuple[object, ...] | None) -> tuple[object, ...] | None:
    """What survives redaction of a matcher list: tool names, never argument values."""
    if items is None:
        return None
    return tuple({"toolName": i["toolName"]} if isinstance(i, dict) else i for i in items)


def _without_content(inp: StageDerivationInput | None) -> StageDerivationInput | None:
    if inp is None:
        return None
    prompts = tuple(
        replace(
            p,
            expected_tool_calls=_names_only(p.expected_tool_calls),
            missing=_names_only(p.missing),
            unexpected=_names_only(p.unexpected),
            argument_mismatches=_names_only(p.argument_mismatches),
        )
        for p in inp.evidence.prompts
    )
    return replace(inp, evidence=replace(inp.evidence, prompts=prompts))


def test_redacted_export_gives_the_same_inputs_minus_content() -> None:
    full, redacted = _evidence(False), _evidence(True)
    assert full.trials.num_rows == redacted.trials.num_rows == 24
    assert full.trials.column("redacted").to_pylist() == [False] * 24
    assert redacted.trials.column("redacted").to_pylist() == [True] * 24
    same = [_without_content(i) for i in full.inputs]
    assert [_without_content(i) for i in redacted.inputs] == same
    assert redacted.issues.num_rows == full.issues.num_rows == 0

    # content was really withheld: argument values are gone from the redacted side only
    def values(ev: TrialEvidence) -> list[Any]:
        return [
            p.expected_tool_calls
            for i in ev.inputs
            if i is not None
            for p in i.evidence.prompts
            if isinstance(p, PromptSummary) and p.expected_tool_calls
        ]

    assert all("arguments" in c for calls in values(full) for c in calls)  # type: ignore[operator]
    assert not any("arguments" in c for calls in values(redacted) for c in calls)  # type: ignore[operator]


def test_redacted_chains_equal_full_chains() -> None:
    full, redacted = _evidence(False), _evidence(True)
    for a, b in zip(full.inputs, redacted.inputs, strict=True):
        assert a is not None and b is not None
        assert derive_chain(a) == derive_chain(b)
