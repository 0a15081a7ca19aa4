"""The comparison vocabulary and document shape (contract/compare.py)."""

from __future__ import annotations

import pytest

from valuechain.contract.compare import CaseChange, CaseVerdict, compare_json_schema


@pytest.mark.parametrize(
    ("enum", "values"),
    [
        (
            CaseChange,
            [
                "passed",
                "stillFailing",
                "regressed",
                "fixed",
                "new",
                "removed",
                "changed",
                "inconclusive",
            ],
        ),
        (CaseVerdict, ["passed", "failed", "inconclusive"]),
    ],
)
def test_wire_values(enum: type, values: list[str]) -> None:
    assert [member.value for member in enum] == values


def test_the_json_schema_is_generated_with_camel_case_keys() -> None:
    schema = compare_json_schema()
    assert schema["title"] == "RunComparison"
    assert list(schema["properties"]) == [
        "a", "b", "blockers", "comparable", "unmeasured", "forced", "stages", "cases", "hints"
    ]  # fmt: skip
    assert "hints" not in schema["required"]  # only runs read from MCPJam SDK results carry it
    assert list(schema["$defs"]["BlockerHint"]["properties"]) == ["runId", "blocker", "hint"]
    case = schema["$defs"]["CaseComparison"]["properties"]
    assert list(case) == [
        "caseId", "title", "change", "a", "b", "tokensDelta", "durationMsDelta"
    ]  # fmt: skip
    assert schema["$defs"]["CaseChange"]["enum"] == [c.value for c in CaseChange]
