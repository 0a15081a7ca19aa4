"""The golden chains agree, trial by trial, with the chains derived by hand in
fixtures/producers/mcpjam-sdk/README.md ("Expected chains": the K patterns and the per-trial
table), transcribed here as data; the README's "Deviations of the reader" say where the hand
derivation was corrected and why (CONTRACT §2.2, §3.1)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

GOLDEN = Path(__file__).resolve().parents[3] / "fixtures" / "golden" / "mcpjam_sdk"

IMP, OBS = "passed:impliedByLaterEvidence", "passed:observed"
NA, NR = "notApplicable:notAuthored", "notReached:earlierStageFailed"
NM, PE = "notMeasured:noEvidenceCaptured", "notMeasured:providerError"
K = {
    "K1": (IMP, IMP, OBS, OBS, OBS, NA),
    "K2": (IMP, IMP, OBS, OBS, OBS, OBS),
    "K3": (IMP, IMP, OBS, "failed:argumentMismatch", OBS, NA),
    "K5": (NM, NM, "failed:missingToolCall", NR, NR, NA),
    "K6": (IMP, IMP, OBS, OBS, OBS, NA),
    "K7": (IMP, IMP, "failed:unexpectedToolCall", OBS, OBS, NA),
    "K8": (IMP, IMP, OBS, OBS, "failed:toolError", NA),
    "K9": (IMP, IMP, OBS, OBS, "failed:toolError", NR),
    "K10": (IMP, IMP, OBS, "failed:protocolError", "failed:toolError", NA),
    "K11": (IMP, IMP, OBS, "failed:protocolError", "failed:toolError", NR),
    "K12": (PE, PE, PE, PE, PE, NA),
    "K13": (PE,) * 6,
    "K14": (NM, NM, OBS, NA, NA, NA),
    "K15": (NM, NM, OBS, OBS, NM, NA),
    "K16": (NM, NM, OBS, OBS, NM, OBS),
    "K17": (IMP, IMP, "failed:missingToolCall", OBS, OBS, NA),
}
CASES = (
    "add-pass", "multi-turn", "arg-mismatch", "missing-call", "extra-call",
    "tool-iserror", "tool-throws", "provider-error", "negative", "flaky",
)  # fmt: skip
# the README's per-trial table, one column per source: per case the K id of each repetition
TABLE = {
    "1_14_0__captured__suite-model-a": "K1 K1 K3 K5 K6 K8 K10 K12 K14 K1,K3,K1",
    "1_14_0__captured__suite-model-b": "K1 K1 K3 K1 K6 K8 K10 K12 K14 K1,K3,K3",
    "repo-6d550c0__captured__suite-model-a": "K2 K1 K3 K5 K7 K9 K11 K13 K16 K1,K3,K1",
    "repo-6d550c0__captured__suite-model-b": "K2 K1 K3 K1 K7 K9 K11 K13 K16 K1,K3,K3",
    "1_14_0__captured__reporter": "K1 K17 K3 K5 K6 K8 K10 K12 K15 K1,K3,K1",
    "repo-6d550c0__captured__reporter": "K1 K17 K3 K5 K6 K8 K10 K12 K15 K1,K3,K1",
}


@pytest.mark.parametrize("source", sorted(TABLE))
def test_golden_chains_are_the_hand_derived_ones(source: str) -> None:
    golden = next(GOLDEN.glob(source + "*.json"))
    rows = json.loads(golden.read_text())
    got: dict[str, list[tuple[str, ...]]] = {}
    for row in rows:
        links = tuple(link.split("=", 1)[1] for link in row["chain"].split(" "))
        got.setdefault(row["case_title"], []).append(links)
    for case, ids in zip(CASES, TABLE[source].split(" "), strict=True):
        per_rep = ids.split(",")
        reps = len(got[case])
        expected = [K[k] for k in (per_rep if len(per_rep) > 1 else per_rep * reps)]
        assert got[case] == expected, (case, ids)
