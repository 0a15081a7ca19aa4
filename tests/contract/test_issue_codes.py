"""The one issue vocabulary: every code has its severity, its hint, and its table."""

from __future__ import annotations

import pytest

from valuechain.contract.issues import (
    AGGREGATED,
    HINTS,
    TRIAL_HINTS,
    VERSION_CODES,
    Code,
    Issue,
    Severity,
    issues_table,
)
from valuechain.contract.tables import ISSUES

# TRACE-FORMAT §5.2: the codes the trial layer raises (CONTRACT §9 Q6 adds the authored mode).
TRIAL_CODES = {
    "W_TRIAL_ROOT_MISSING",
    "W_MULTIPLE_TRIAL_ROOTS",
    "W_MULTIPLE_ROOTS",
    "W_ORPHAN_SPAN",
    "I_CHILD_OUTSIDE_PARENT",
    "W_CONTRACT_TYPE",
    "W_UNKNOWN_CONTRACT_KEY",
    "W_VERSION_AHEAD",
    "W_RUN_INCOMPLETE_IN_EXPORT",
    "W_TRIAL_ID_CONFLICT",
    "W_TRANSPORT_ERROR_WITHOUT_CODE",
    "W_EVIDENCE_SPAN_UNRESOLVED",
    "W_CHAIN_INVALID",
    "W_UNKNOWN_AUTHORED_MODE",
    "W_DUPLICATE_CONFLICT",
    "E_PARENT_CYCLE",
}


@pytest.mark.parametrize("code", list(Code), ids=str)
def test_every_code_is_its_own_wire_value_with_a_severity_and_a_hint(code: Code) -> None:
    assert code.value == code.name
    expected = {"E": Severity.ERROR, "W": Severity.WARNING, "I": Severity.INFO}[code.value[0]]
    assert code.severity is expected
    assert code in HINTS or code in TRIAL_HINTS, f"{code} has no hint at any level"


def test_the_trial_layer_has_exactly_its_codes() -> None:
    assert {c.value for c in TRIAL_HINTS} == TRIAL_CODES
    # raised at both levels, with the consequence of each: kept at the source, excluded trials
    both = set(HINTS) & set(TRIAL_HINTS)
    assert both == {Code.W_DUPLICATE_CONFLICT}
    assert HINTS[Code.W_DUPLICATE_CONFLICT] != TRIAL_HINTS[Code.W_DUPLICATE_CONFLICT]
    assert set(TRIAL_HINTS) >= VERSION_CODES
    assert set(HINTS) >= AGGREGATED


def test_hints_are_one_line() -> None:
    for hint in (*HINTS.values(), *TRIAL_HINTS.values()):
        assert hint and "\n" not in hint and not hint.endswith(".")


def test_the_issues_table_carries_every_field() -> None:
    issue = Issue(Code.W_UNKNOWN_ENUM, "kind 9", 3, 4, 120, "spans[0].kind", "9", 7, 2)
    (row,) = issues_table([issue]).to_pylist()
    assert issues_table([]).schema == ISSUES
    assert row == {
        "severity": "warning",
        "code": "W_UNKNOWN_ENUM",
        "record_index": 3,
        "line": 4,
        "byte_offset": 120,
        "json_path": "spans[0].kind",
        "span_row": 7,
        "message": "kind 9",
        "value_excerpt": "9",
        "hint": HINTS[Code.W_UNKNOWN_ENUM],
        "occurrences": 2,
    }
