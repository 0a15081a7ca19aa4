"""Decision-table machinery and the setup-stage tables (CONTRACT §2.8.1, §2.8.2, §2.10).

Each stage is an ordered tuple of `Rule(condition, state, reason, evidence)` — first match
wins — numbered as CONTRACT §2.8 numbers its rows, so code and spec read side by side.
A spec row with several outcomes ("(a) … ; (b) … ; else (c) …"), or a run of rows sharing
one premise, is a `group(premise, *rules)`: its rules are tried in order once the premise
holds, and if none matches the table carries on below the group. Every table ends in an
unconditional row, so a stage always decides something. Conditions read the precomputed
`Facts`; their names are the documentation. The tables of the four later stages live in
`turn_rules.py`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import TypeAlias, cast

from valuechain.contract.chain import StageEvidenceRefs, StageResult
from valuechain.contract.vocab import Stage, StageReason, StageState
from valuechain.derive.facts import Facts, new_result, plain_row, row_reason_refs, signal_refs

P, F = StageState.PASSED, StageState.FAILED
NM, NR, NA = StageState.NOT_MEASURED, StageState.NOT_REACHED, StageState.NOT_APPLICABLE
R = StageReason

Condition = Callable[[Facts], object]  # truthy ⇒ the rule matches
EvidenceOf = Callable[[Facts], StageEvidenceRefs | None]


@dataclass(frozen=True, slots=True)
class Rule:
    """One row of a §2.8 decision table, or (with `then`) a group of rows under a premise."""

    when: Condition
    state: StageState | None = None
    reason: StageReason | None = None
    evidence: EvidenceOf | None = None
    then: tuple[Rule, ...] = ()


def group(premise: Condition, *rules: Rule) -> Rule:
    """Rules tried in order once `premise` holds; none matching falls through the group."""
    return Rule(premise, then=rules)


# A table compiled for one stage: (condition, evidence, evidence-less row, compiled group).
CompiledRule: TypeAlias = tuple[
    Condition, EvidenceOf | None, StageResult | None, "tuple[CompiledRule, ...] | None"
]
CompiledTable: TypeAlias = tuple[CompiledRule, ...]


def compile_table(stage: Stage, table: Sequence[Rule]) -> CompiledTable:
    """Pre-build each rule's evidence-less row, so deciding allocates only for evidence."""
    compiled: list[CompiledRule] = []
    for rule in table:
        if rule.then:
            compiled.append((rule.when, None, None, compile_table(stage, rule.then)))
        else:
            assert rule.state is not None and rule.reason is not None, rule
            row = plain_row(stage, rule.state, rule.reason)
            compiled.append((rule.when, rule.evidence, row, None))
    return tuple(compiled)


def first_match(table: CompiledTable, f: Facts) -> StageResult | None:
    """The row of the first rule of `table` whose condition holds, if any."""
    for when, evidence, row, rules in table:
        if when(f):
            if rules is not None:
                found = first_match(rules, f)
                if found is None:
                    continue
                return found
            assert row is not None
            refs = None if evidence is None else evidence(f)
            return row if refs is None else new_result(row.stage, row.state, row.reason, refs)
    return None


def decide(table: CompiledTable, f: Facts) -> StageResult:
    """The first matching rule of a stage's table decides it; the last row always matches."""
    found = first_match(table, f)
    if found is None:
        raise AssertionError("decision table has no unconditional last row")
    return found


def fact(name: str) -> Condition:
    """A condition that is one precomputed `Facts` attribute (a non-empty list is true)."""
    return cast(Condition, attrgetter(name))  # C-speed: tables run per trial


# --- shared ------------------------------------------------------------------------------


def always(f: Facts) -> bool:
    return True


trace_absent = fact("trace_absent")
lacks_span_channel = fact("lacks_channel")
any_tool_span = fact("tool_spans")  # any tool span, whatever its status or code


def tool_span_ids(f: Facts) -> StageEvidenceRefs:
    return f.span_refs(f.tool_spans)


# The last rows of selection (6), call (7) and response (6).
NOTHING_CAPTURED: tuple[Rule, ...] = (
    Rule(trace_absent, NM, R.TRACE_ABSENT),
    Rule(lacks_span_channel, NM, R.EXECUTOR_EMITS_NO_SPANS),
    Rule(always, NM, R.NO_EVIDENCE_CAPTURED),
)


# --- §2.8.1 connection -------------------------------------------------------------------

conn_ok = fact("conn_ok")
reaching_tool_span = fact("reaching_spans")  # a tool span that is not transport-local
tools_listed = fact("tools_listed")  # toolsTotalBefore > 0
conn_failed = fact("conn_failed")


def theirs_with_verified_egress(f: Facts) -> bool:
    s = f.conn_signal
    return s is not None and s.attribution == "theirs" and s.egress_verified is True


def theirs_unknown_or_unattributed(f: Facts) -> bool:
    s = f.conn_signal
    return s is not None and s.attribution in ("theirs", "unknown", None)


def conn_signal_ids(f: Facts) -> StageEvidenceRefs | None:
    return signal_refs(f.conn_signal)


def reaching_span_ids(f: Facts) -> StageEvidenceRefs:
    return f.span_refs(f.reaching_spans)


CONNECTION: tuple[Rule, ...] = (
    Rule(conn_ok, P, R.OBSERVED, conn_signal_ids),  # 1
    Rule(reaching_tool_span, P, R.IMPLIED_BY_LATER_EVIDENCE, reaching_span_ids),  # 2
    Rule(tools_listed, P, R.IMPLIED_BY_LATER_EVIDENCE),  # 3: later evidence outranks 4–6
    group(
        conn_failed,
        Rule(theirs_with_verified_egress, F, R.CONNECT_FAILED, conn_signal_ids),  # 4
        Rule(theirs_unknown_or_unattributed, NM, R.EGRESS_UNVERIFIED, conn_signal_ids),  # 5
        Rule(always, NM, R.SETUP_ABORTED, conn_signal_ids),  # 6: ours, or any other value
    ),
    Rule(trace_absent, NM, R.TRACE_ABSENT),  # 7
    Rule(always, NM, R.NO_EVIDENCE_CAPTURED),  # 8
)


# --- §2.8.2 discovery --------------------------------------------------------------------

disc_ok = fact("disc_ok")
disc_failed = fact("disc_failed")
catalog_check_failed = fact("disc_failures")


def theirs_on_reached_server(f: Facts) -> bool:
    s = f.disc_signal
    return s is not None and s.attribution == "theirs" and f.connection_reached


def ours(f: Facts) -> bool:
    return f.disc_signal is not None and f.disc_signal.attribution == "ours"


def catalog_listed(f: Facts) -> bool:
    # Every catalog kind errors unless the catalog capture is complete, so a scored row
    # is itself evidence that a tools/list round trip finished.
    return f.tools_listed or bool(f.disc_rows)


def disc_signal_ids(f: Facts) -> StageEvidenceRefs | None:
    return signal_refs(f.disc_signal)


def failed_catalog_reasons(f: Facts) -> StageEvidenceRefs | None:
    return row_reason_refs(f.disc_failures)


FAILED_TOOLS_LIST = group(
    disc_failed,
    Rule(theirs_on_reached_server, F, R.TOOLS_LIST_FAILED, disc_signal_ids),  # 1
    Rule(ours, NM, R.SETUP_ABORTED, disc_signal_ids),  # 2
    Rule(always, NM, R.EGRESS_UNVERIFIED, disc_signal_ids),  # 3: unknown / absent / unreached
)

DISCOVERY_V12: tuple[Rule, ...] = (
    FAILED_TOOLS_LIST,  # 1–3
    Rule(catalog_check_failed, F, R.PREDICATE_FAILED, failed_catalog_reasons),  # 4
    Rule(disc_ok, P, R.OBSERVED, disc_signal_ids),  # 5
    Rule(catalog_listed, P, R.OBSERVED),  # 6
    Rule(any_tool_span, P, R.IMPLIED_BY_LATER_EVIDENCE, tool_span_ids),  # 7: any code/status
    Rule(trace_absent, NM, R.TRACE_ABSENT),  # 8
    Rule(always, NM, R.NO_EVIDENCE_CAPTURED),  # 9
)

# "Analyzer ≤11 order" of §2.8.2 — valuechain's selectable analyzer 11, §7.2 (a): no catalog
# rows, and a failed tools/list signal ranks below `toolsTotalBefore` and tool spans.
DISCOVERY_V11: tuple[Rule, ...] = (
    Rule(disc_ok, P, R.OBSERVED, disc_signal_ids),
    Rule(tools_listed, P, R.OBSERVED),
    Rule(any_tool_span, P, R.IMPLIED_BY_LATER_EVIDENCE, tool_span_ids),
    FAILED_TOOLS_LIST,
    Rule(trace_absent, NM, R.TRACE_ABSENT),
    Rule(always, NM, R.NO_EVIDENCE_CAPTURED),
)
