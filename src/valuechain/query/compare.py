"""Compare two runs (`valuechain compare A B`): parity blockers first, deltas only without any.

Which documents are compared (DESIGN.md): both runs' derived chains at the current analyzer
unless the caller names another chain source or analyzer — the same for both. A run without
that document is listed in `unmeasured` (CONTRACT §5.10), which blocks the comparison like a
parity blocker does (§5.11): nothing measured is nothing compared.

Stages: the three rates of each stage of the overall slice on each side, and their
differences (B − A) only when the runs are comparable and both sides are `measured`.

Cases are matched by their stable key (else their id). A case's verdict in one run follows
CONTRACT §6.3 per case × execution variant — eligible trials are completed, with a
`passed`/`failed` result and no evaluator error; the variant passes when passed / eligible
reaches the case's pass threshold (its own, else the suite default, else 1: every graded
trial passed), and is `inconclusive` with no eligible trial — and the case fails when any
variant fails, else is inconclusive when any variant is, else passes (sql/query/
compare_cases.sql). Its change is the first rule of `case_change` that matches. When the
runs are not comparable the cases are listed only on request (`force`), and the document
says so (`forced`): such a listing is not a comparison claim.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Final

import duckdb
from pydantic import MISSING

from valuechain.contract.compare import (
    BlockerHint,
    CaseChange,
    CaseComparison,
    CaseVerdict,
    RateDeltas,
    RunComparison,
    StageComparison,
    StageRates,
)
from valuechain.contract.documents import StageAnalyticsV1
from valuechain.contract.rates import (
    MeasuredRate,
    NotMeasuredRate,
    measured_pass_rate,
    measurement_coverage_rate,
    reach_rate,
)
from valuechain.contract.tallies import StageTally
from valuechain.query.funnel import analytics_document
from valuechain.query.parity import IDENTITY_FIELDS, stage_analytics_parity_blockers
from valuechain.query.producer_hints import identity_hint, sdk_runs
from valuechain.query.statements import query_rows

_P, _F, _I = CaseVerdict.PASSED, CaseVerdict.FAILED, CaseVerdict.INCONCLUSIVE

# A case graded on both sides with the same configuration: (A, B) → change (seed 002).
TRANSITIONS: Final[dict[tuple[CaseVerdict, CaseVerdict], CaseChange]] = {
    (_P, _P): CaseChange.PASSED,
    (_F, _F): CaseChange.STILL_FAILING,
    (_P, _F): CaseChange.REGRESSED,
    (_F, _P): CaseChange.FIXED,
}


@dataclass(frozen=True, slots=True)
class CaseSide:
    """One case in one run: what `compare_cases.sql` returns for it."""

    case_id: str
    title: str | None
    verdict: CaseVerdict
    tokens: int | None
    duration_ms: float | None
    content_hashes: tuple[str, ...] = ()
    variants: tuple[str, ...] = ()
    first_iteration: int | None = None

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> CaseSide:
        return cls(
            case_id=row["case_id"] or row["case_ref"],
            title=row["title"],
            verdict=CaseVerdict(row["verdict"]),
            tokens=row["tokens"],
            duration_ms=row["duration_ms"],
            content_hashes=tuple(row["content_hashes"]),
            variants=tuple(row["variants"]),
            first_iteration=row["first_iteration"],
        )


def configuration_differs(a: CaseSide, b: CaseSide) -> bool:
    """The case ran under another configuration: other execution variants, or another
    content hash (`mcp.app.case.content_hash`) where both runs exported one."""
    hashes_differ = bool(a.content_hashes and b.content_hashes) and (
        a.content_hashes != b.content_hashes
    )
    return hashes_differ or a.variants != b.variants


def case_change(a: CaseSide | None, b: CaseSide | None) -> CaseChange:
    """How a case moved from A to B; the first rule that matches wins:

    only in B → `new`; only in A → `removed`; its configuration differs → `changed` (a
    verdict under another configuration is not a regression); a side graded nothing →
    `inconclusive` (never a pass, a fail, a regression or a fix); else `TRANSITIONS`.
    """
    if a is None and b is None:
        raise ValueError("a case is in at least one of the two runs")
    if a is None:
        return CaseChange.NEW
    if b is None:
        return CaseChange.REMOVED
    if configuration_differs(a, b):
        return CaseChange.CHANGED
    if _I in (a.verdict, b.verdict):
        return CaseChange.INCONCLUSIVE
    return TRANSITIONS[(a.verdict, b.verdict)]


def _delta(a: float | int | None, b: float | int | None) -> Any:
    return None if a is None or b is None else b - a


def compare_case(a: CaseSide | None, b: CaseSide | None) -> CaseComparison:
    """One case's row: its change, verdicts, and B − A totals (null when a side lacks one)."""
    known = b if b is not None else a
    assert known is not None
    return CaseComparison(
        case_id=known.case_id,
        title=known.title,
        change=case_change(a, b),
        a=None if a is None else a.verdict,
        b=None if b is None else b.verdict,
        tokens_delta=None if a is None or b is None else _delta(a.tokens, b.tokens),
        duration_ms_delta=None if a is None or b is None else _delta(a.duration_ms, b.duration_ms),
    )


def compare_cases(
    sides: dict[str, tuple[CaseSide | None, CaseSide | None]],
) -> list[CaseComparison]:
    """Every case of either run, in A's order (first iteration), then B's new cases."""

    def order(item: tuple[str, tuple[CaseSide | None, CaseSide | None]]) -> tuple[int, int, str]:
        ref, (a, b) = item
        side = a if a is not None else b
        assert side is not None
        return (a is None, side.first_iteration or 0, ref)

    return [compare_case(a, b) for _, (a, b) in sorted(sides.items(), key=order)]


def stage_rates(tally: StageTally) -> StageRates:
    return StageRates(
        measured_pass_rate=measured_pass_rate(tally),
        reach_rate=reach_rate(tally),
        measurement_coverage_rate=measurement_coverage_rate(tally),
    )


def _rate_delta(a: MeasuredRate | NotMeasuredRate, b: MeasuredRate | NotMeasuredRate) -> Any:
    """B − A, or None when either side is notMeasured (never a number from 0/0)."""
    if isinstance(a, MeasuredRate) and isinstance(b, MeasuredRate):
        return b.value - a.value
    return None


def compare_stages(
    a: StageAnalyticsV1, b: StageAnalyticsV1, *, comparable: bool
) -> list[StageComparison]:
    """The overall slice's six stages side by side; deltas only when comparable."""
    rows = []
    for left, right in zip(a.slices[0].stages, b.slices[0].stages, strict=True):
        ra, rb = stage_rates(left), stage_rates(right)
        delta = (
            RateDeltas(
                measured_pass_rate=_rate_delta(ra.measured_pass_rate, rb.measured_pass_rate),
                reach_rate=_rate_delta(ra.reach_rate, rb.reach_rate),
                measurement_coverage_rate=_rate_delta(
                    ra.measurement_coverage_rate, rb.measurement_coverage_rate
                ),
            )
            if comparable
            else None
        )
        rows.append(StageComparison(stage=left.stage, a=ra, b=rb, delta=delta))
    return rows


def case_sides(
    con: duckdb.DuckDBPyConnection, run_a: str, run_b: str
) -> dict[str, tuple[CaseSide | None, CaseSide | None]]:
    """Each case reference of the two runs → (its side in A, its side in B)."""
    found: dict[tuple[str, str], CaseSide] = {}
    for row in query_rows(con, "query/compare_cases.sql", {"run_a": run_a, "run_b": run_b}):
        found[(row["run_id"], row["case_ref"])] = CaseSide.from_row(row)
    refs = {ref for _, ref in found}
    return {ref: (found.get((run_a, ref)), found.get((run_b, ref))) for ref in refs}


def compare_runs(
    con: duckdb.DuckDBPyConnection,
    run_a: str,
    run_b: str,
    *,
    chains: str = "derived",
    analyzer: int | None = None,
    force: bool = False,
) -> RunComparison:
    """`compare A B`. Raises `UsageError` when a run does not exist or an option is invalid."""
    doc_a = analytics_document(con, run_a, chains=chains, analyzer=analyzer)
    doc_b = analytics_document(con, run_b, chains=chains, analyzer=analyzer)
    unmeasured = [run for run, doc in ((run_a, doc_a), (run_b, doc_b)) if doc is None]
    if run_a == run_b:
        unmeasured = unmeasured[:1]
    blockers = (
        [] if doc_a is None or doc_b is None else stage_analytics_parity_blockers(doc_a, doc_b)
    )
    comparable = not blockers and not unmeasured
    stages = (
        []
        if doc_a is None or doc_b is None
        else compare_stages(doc_a, doc_b, comparable=comparable)
    )
    listed = comparable or force
    hints = identity_hints(con, ((run_a, doc_a), (run_b, doc_b)))
    return RunComparison(
        a=run_a,
        b=run_b,
        blockers=blockers,
        comparable=comparable,
        unmeasured=unmeasured,
        forced=listed and not comparable,
        stages=stages,
        cases=compare_cases(case_sides(con, run_a, run_b)) if listed else None,
        **({"hints": hints} if hints else {}),
    )


def identity_hints(
    con: duckdb.DuckDBPyConnection, sides: Iterable[tuple[str, StageAnalyticsV1 | None]]
) -> list[BlockerHint]:
    """For each side read from MCPJam SDK results whose document lacks an identity, the SDK
    option that would supply it (`producer_hints`); none for other producers."""
    lacking = {
        (run, blocker): hint
        for run, doc in sides
        if doc is not None
        for field, blocker in IDENTITY_FIELDS
        if getattr(doc, field) is MISSING and (hint := identity_hint([blocker])) is not None
    }
    sdk = sdk_runs(con, {run for run, _ in lacking})
    return [
        BlockerHint(run_id=run, blocker=blocker, hint=hint)
        for (run, blocker), hint in lacking.items()
        if run in sdk
    ]


def regression(comparison: RunComparison) -> list[str]:
    """What makes `--fail-on regression` fail on a comparable pair: each regressed case and
    each stage whose measured pass rate is lower in B (exact, on the counts); empty when the
    pair is not comparable (that is a different failure: nothing was compared)."""
    if not comparison.comparable:
        return []
    found = [
        f"case {case.case_id} regressed"
        for case in comparison.cases or ()
        if case.change is CaseChange.REGRESSED
    ]
    for row in comparison.stages:
        a, b = row.a.measured_pass_rate, row.b.measured_pass_rate
        if (
            isinstance(a, MeasuredRate)
            and isinstance(b, MeasuredRate)
            and b.numerator * a.denominator < a.numerator * b.denominator
        ):
            found.append(f"{row.stage} measured pass rate fell")
    return found
