"""`synth --failures`: every stage reason analyzer 12 emits, each traced to its injected cause.

One run of 240 trials (6 cases × 2 models × 20 repetitions, seed 7) goes through the real
read path — `decode_export` → `build_trials` → `derive_chain` — with content and redacted.
Every trial root names its scenario (`valuechain.synth.scenario`); the scenario's expected
(stage, reason) pairs must be among the pairs derived for that trial, and together the
derived pairs must cover CONTRACT §1.3 except `noSpanChannel` (never emitted by analyzer ≥ 2).
The producer chain the generator persists must be exactly what analyzer 12 derives from the
evidence the adapter reads back.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from click.testing import CliRunner

from valuechain.cli import main
from valuechain.contract.chain import StageDerivation
from valuechain.contract.vocab import StageReason
from valuechain.derive import derive_chain, derive_measurements
from valuechain.evidence.trials import TrialEvidence, build_trials
from valuechain.ingest.decode import decode_export
from valuechain.synth import (
    CATALOGUE,
    REASONS_NOT_PRODUCED,
    SCENARIO_KEY,
    Scenario,
    SynthConfig,
    generate_requests,
    scenario_named,
    write_export,
)

CONFIG = SynthConfig(runs=1, cases=6, models=2, reps=20, seed=7, failures=True)
ALL_STAGES = frozenset({"connection", "discovery", "selection", "call", "response", "userValue"})
AFTER_CONNECTION = ALL_STAGES - {"connection"}

# CONTRACT §1.3: reason → (the state it is emitted with, the stages that emit it).
SECTION_1_3: dict[str, tuple[str, frozenset[str]]] = {
    "noEvidenceCaptured": ("notMeasured", ALL_STAGES),
    "matchVerdictUnavailable": ("notMeasured", frozenset({"selection"})),
    "traceAbsent": ("notMeasured", ALL_STAGES),
    "executorEmitsNoSpans": ("notMeasured", frozenset({"selection", "call", "response"})),
    "blockedByPolicy": ("notMeasured", ALL_STAGES),
    "evaluatorError": ("notMeasured", frozenset({"userValue"})),
    "providerError": ("notMeasured", ALL_STAGES),
    "setupAborted": ("notMeasured", ALL_STAGES),
    "connectFailed": ("failed", frozenset({"connection"})),
    "toolsListFailed": ("failed", frozenset({"discovery"})),
    "egressUnverified": ("notMeasured", frozenset({"connection", "discovery"})),
    "lifecycleStopped": ("notMeasured", ALL_STAGES),
    "notAuthored": ("notApplicable", frozenset({"selection", "call", "response", "userValue"})),
    "earlierStageFailed": ("notReached", AFTER_CONNECTION),
    "missingToolCall": ("failed", frozenset({"selection"})),
    "unexpectedToolCall": ("failed", frozenset({"selection"})),
    "argumentMismatch": ("failed", frozenset({"call"})),
    "toolError": ("failed", frozenset({"response"})),
    "protocolError": ("failed", frozenset({"call"})),
    "renderFailed": ("failed", frozenset({"response"})),
    "predicateFailed": ("failed", frozenset({"discovery", "response", "userValue"})),
    "observed": ("passed", ALL_STAGES),
    "impliedByLaterEvidence": ("passed", frozenset({"connection", "discovery"})),
    "judgeObserved": ("passed", frozenset({"userValue"})),
    "judgePartial": ("failed", frozenset({"userValue"})),
    "judgeFailed": ("failed", frozenset({"userValue"})),
    "judgePending": ("notMeasured", frozenset({"userValue"})),
    "judgeNotRequested": ("notMeasured", frozenset({"userValue"})),
}


def _at(reason: str, *stages: str) -> set[tuple[str, str]]:
    return {(stage, reason) for stage in stages}


# Every (stage, reason) pair the run derives, pinned: 71 of the pairs §1.3 allows.
EMITTED = (
    _at("noEvidenceCaptured", "selection", "response", "userValue")
    | _at("matchVerdictUnavailable", "selection")
    | _at("traceAbsent", *ALL_STAGES)
    | _at("executorEmitsNoSpans", "selection", "call", "response")
    | _at("blockedByPolicy", *ALL_STAGES)
    | _at("evaluatorError", "userValue")
    | _at("providerError", "selection", "call", "userValue")
    | _at("setupAborted", *ALL_STAGES)
    | _at("connectFailed", "connection")
    | _at("toolsListFailed", "discovery")
    | _at("egressUnverified", "connection", "discovery")
    | _at("lifecycleStopped", *ALL_STAGES)
    | _at("notAuthored", "selection", "call", "response", "userValue")
    | _at("earlierStageFailed", *AFTER_CONNECTION)
    | _at("missingToolCall", "selection")
    | _at("unexpectedToolCall", "selection")
    | _at("argumentMismatch", "call")
    | _at("toolError", "response")
    | _at("protocolError", "call")
    | _at("renderFailed", "response")
    | _at("predicateFailed", "discovery", "response", "userValue")
    | _at("observed", *ALL_STAGES)
    | _at("impliedByLaterEvidence", "connection", "discovery")
    | _at("judgeObserved", "userValue")
    | _at("judgePartial", "userValue")
    | _at("judgeFailed", "userValue")
    | _at("judgePending", "userValue")
    | _at("judgeNotRequested", "userValue")
)


@dataclass(frozen=True)
class Run:
    """One generated export, read back: per trial its scenario and the derived chain."""

    evidence: TrialEvidence
    scenarios: list[Scenario]
    chains: list[StageDerivation]
    decode_issues: int

    def __repr__(self) -> str:  # keeps assertion messages readable
        return f"Run({len(self.chains)} trials)"

    def pairs(self, i: int) -> set[tuple[str, str]]:
        return {(r.stage.value, r.reason.value) for r in self.chains[i].stage_results if r.reason}


def _scenarios(attributes: Any, trial_ids: list[str]) -> list[Scenario]:
    """The scenario each trial root names, by `mcp.app.trial.id`."""
    rows = pl.from_arrow(attributes)
    assert isinstance(rows, pl.DataFrame)
    keyed = rows.filter(
        (pl.col("owner_type") == "span") & pl.col("key").is_in([SCENARIO_KEY, "mcp.app.trial.id"])
    ).select("owner_row", "key", "string_value")
    wide = keyed.pivot("key", index="owner_row", values="string_value")
    by_trial = dict(zip(wide["mcp.app.trial.id"], wide[SCENARIO_KEY], strict=True))
    return [scenario_named(by_trial[trial_id]) for trial_id in trial_ids]


@pytest.fixture(scope="module", params=[False, True], ids=["content", "redacted"])
def run(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Run:
    path = tmp_path_factory.mktemp("failures") / "failures.json"
    write_export(path, replace(CONFIG, redacted=request.param))
    decoded = decode_export(path.read_bytes(), path.name)
    assert decoded.status == "ok"
    spans, attributes = decoded.tables["spans"], decoded.tables["attributes"]
    evidence = build_trials(spans, attributes, source_runs={0: decoded.sha256})
    trial_ids = evidence.trials.column("trial_id").to_pylist()
    chains = []
    for inp in evidence.inputs:
        assert inp is not None
        chains.append(derive_chain(inp))
    return Run(evidence, _scenarios(attributes, trial_ids), chains, len(decoded.issues))


def test_the_export_reads_back_cleanly(run: Run) -> None:
    trials = CONFIG.runs * CONFIG.cases * CONFIG.models * CONFIG.reps
    assert len(run.chains) == trials
    assert run.decode_issues == 0
    assert run.evidence.issues.num_rows == 0, run.evidence.issues.to_pylist()[:3]


def test_every_reason_but_the_legacy_one_is_emitted(run: Run) -> None:
    emitted = {reason for i in range(len(run.chains)) for _, reason in run.pairs(i)}
    assert set(REASONS_NOT_PRODUCED) == {StageReason.NO_SPAN_CHANNEL.value}
    assert emitted == {r.value for r in StageReason} - set(REASONS_NOT_PRODUCED)


def test_the_emitted_pairs_are_exactly_these(run: Run) -> None:
    emitted = set().union(*(run.pairs(i) for i in range(len(run.chains))))
    assert emitted == EMITTED, (sorted(emitted - EMITTED), sorted(EMITTED - emitted))


def test_every_row_pairs_state_stage_and_reason_as_section_1_3_says(run: Run) -> None:
    assert set(SECTION_1_3) == {r.value for r in StageReason} - {"noSpanChannel"}
    for chain in run.chains:
        for row in chain.stage_results:
            assert row.reason is not None
            state, stages = SECTION_1_3[row.reason.value]
            assert (row.state.value, row.stage.value in stages) == (state, True), row


def test_each_trial_scenario_explains_the_reasons_derived(run: Run) -> None:
    unexplained: Counter[tuple[str, tuple[tuple[str, str], ...]]] = Counter()
    for i, scenario in enumerate(run.scenarios):
        chain = run.chains[i]
        if missing := scenario.expects - run.pairs(i):
            unexplained[scenario.name, tuple(sorted(missing))] += 1
        if scenario.category is not None:
            got = chain.failure_category.value if chain.failure_category else None
            assert got == scenario.category, (scenario.name, got)
    assert not unexplained, unexplained


def test_every_scenario_is_drawn_and_their_causes_cover_every_reason(run: Run) -> None:
    drawn = Counter(scenario.name for scenario in run.scenarios)
    assert set(drawn) == {scenario.name for scenario in CATALOGUE}
    assert len(CATALOGUE) == len({scenario.name for scenario in CATALOGUE})
    caused = {reason for scenario in CATALOGUE for _, reason in scenario.expects}
    assert caused == {r.value for r in StageReason} - set(REASONS_NOT_PRODUCED)
    for scenario in CATALOGUE:  # what a scenario promises, §1.3 allows
        for stage, reason in scenario.expects:
            assert stage in SECTION_1_3[reason][1], (scenario.name, stage, reason)


def _evidence(row: dict[str, Any]) -> dict[str, Any] | None:
    wire = {"spanIds": "span_ids", "promptIndexes": "prompt_indexes"}
    wire["predicateReasons"] = "predicate_reasons"
    refs = {key: row[column] for key, column in wire.items() if row[column] is not None}
    return refs or None


def test_the_persisted_chain_is_what_analyzer_12_derives(run: Run) -> None:
    evidence = run.evidence
    persisted = evidence.producer_chain.to_pylist()
    assert len(persisted) == 6 * len(run.chains)
    for row in persisted:
        derived = run.chains[row["trial_index"]].stage_results[row["stage_index"]]
        assert row["analyzer_version"] == 12
        assert row["unresolved_span_ids"] == []
        got = (row["stage"], row["state"], row["reason"], _evidence(row))
        refs = derived.evidence.to_wire() if derived.evidence is not None else None
        want = (derived.stage.value, derived.state.value, derived.reason, refs)
        assert got == want, run.scenarios[row["trial_index"]].name
    for row in evidence.producer_outcome.to_pylist():
        chain = run.chains[row["trial_index"]]
        first = chain.first_failed_stage.value if chain.first_failed_stage else None
        category = chain.failure_category.value if chain.failure_category else None
        assert (row["first_failed_stage"], row["failure_category"]) == (first, category)
        assert row["chain_verified"] is True and row["measurements_verified"] is True
    measured = {
        (row["trial_index"], row["stage_index"]): (row["reach"], row["latency_ms"])
        for row in evidence.producer_measurements.to_pylist()
    }
    for i, chain in enumerate(run.chains):  # CONTRACT §4 from the trial's own spans
        for k, m in enumerate(derive_measurements(chain, evidence.timed_spans(i)).rows):
            latency = float(m.latency.value) if m.latency is not None else None
            assert measured[i, k] == (m.reach.value, latency), (run.scenarios[i].name, k)


def test_failures_are_deterministic_and_off_by_default(tmp_path: Path) -> None:
    small = SynthConfig(runs=1, cases=3, models=1, reps=2, seed=3)
    assert small.failures is False
    assert json.dumps(list(generate_requests(replace(small, failures=False)))) == json.dumps(
        list(generate_requests(small))
    )
    paths = [tmp_path / "a.json", tmp_path / "b.json"]
    for path in paths:
        write_export(path, replace(small, failures=True))
    assert paths[0].read_bytes() == paths[1].read_bytes()
    assert paths[0].read_bytes() != write_export(tmp_path / "c.json", small).path.read_bytes()


def test_cli_synth_failures_records_a_scenario_on_every_trial_root(tmp_path: Path) -> None:
    out = tmp_path / "f.jsonl"
    args = ["synth", "--failures", "--cases", "3", "--reps", "3", "--ndjson", "--out", str(out)]
    result = CliRunner().invoke(main, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    names = []
    for line in out.read_text().splitlines():
        (root, *_) = json.loads(line)["resourceSpans"][0]["scopeSpans"][0]["spans"]
        keys = {kv["key"]: kv["value"] for kv in root["attributes"]}
        names.append(keys[SCENARIO_KEY]["stringValue"])
    assert len(names) == 3 * 2 * 3
    assert all(scenario_named(name) for name in names)
