"""Coverage vocabulary: what a suite's checks can decide, link by link (issue 19).

CONTRACT §2.5/§3.2 route a gating-and-scored predicate row to the stage that consumes it;
coverage asks the converse question of an authored suite — which links some case authors a
check for that can decide them, and which links nothing the suite authors can decide. The
routing itself is `contract.predicates` (the one kind→link table); this module adds only what
coverage needs beside it: the observation kinds (never counted, §3.1, Q4), the links the runner
decides (connection and discovery, seed 000), the evaluator ids standing for the matcher and
the goal judge (§3.4), the lint rules of Q5, and the JSON document's shape.

`check_route_rows` is the kind→link table as rows: the view `core.check_routes`
(sql/views/150) holds exactly these rows, which tests/contract/test_coverage_routes.py proves.
"""

from __future__ import annotations

from collections.abc import Iterator
from enum import StrEnum
from typing import Final, NamedTuple

from valuechain.contract.predicates import (
    JS_OBJECT_PROTOTYPE_MEMBERS,
    KIND_TABLE,
    PREDICATE_STAGE,
    ROUTES,
)
from valuechain.contract.tallies import NonEmpty, StageField, StrictModel
from valuechain.contract.vocab import Stage

# CONTRACT §3.1 (Q4: six, `noDeprecatedToolExposed` included): heuristics that MUST be
# advisory. Coverage never counts one, whatever role it arrives with.
OBSERVATION_KINDS: Final[frozenset[str]] = frozenset(
    {
        "noEndingQuestion",
        "noRepeatedIdenticalCall",
        "noDeprecatedToolCalled",
        "toolErrorNamesInput",
        "fullPageHasContinuation",
        "noDeprecatedToolExposed",
    }
)

# Links the runner decides from what it observed setting the run up (initialize, tools/list,
# the egress canary; seed 000): a suite without a check there is not leaving a gap.
RUNNER_DECIDED: Final[frozenset[Stage]] = frozenset({Stage.CONNECTION, Stage.DISCOVERY})

# Graders that are not predicates but decide a link (CONTRACT §3.4), named by evaluator id.
MATCHER: Final = "toolCalls:match"  # expected tool calls: selection
MATCHER_ARGUMENTS: Final = "toolCalls:arguments"  # their arguments, unless matching is ignore
GOAL_JUDGE: Final = "judge:goalCompletion"  # tier-2 userValue judge


class CoverageRule(StrEnum):
    """The coverage lint of CONTRACT Q5 (and the observation rule of §3.1)."""

    # userValue is applicable (assertionCount counts every non-selection kind, advisory ones
    # too; an expected output; a widget) yet no check or judge of the case can grade it: the
    # link stays notMeasured (or notReached) on every trial.
    USER_VALUE_UNGRADABLE = "userValueUngradable"
    # a gating `toolCalledWith` arrived as a predicate row instead of matcher expectations:
    # derivation routes it to userValue, not selection.
    TOOL_CALLED_WITH_ROW = "toolCalledWithRow"
    # an observation kind arrived gating: it decides a stage in derivation, though it must be
    # advisory (§3.1); coverage does not count it.
    GATING_OBSERVATION = "gatingObservation"


class CheckRoute(NamedTuple):
    """One row of `core.check_routes`."""

    analyzer_version: int
    ordinal: int  # §3.2 table order (JS prototype members after, sorted)
    kind: str
    filed_link: str | None  # §3.2 link (None: not a catalogue kind at this analyzer)
    routed_stage: str  # the stage a gating-and-scored row is consumed by (§2.5)
    observation: bool


def check_route_rows() -> Iterator[CheckRoute]:
    """The kind→link table of `contract.predicates` as rows, per analyzer."""
    for analyzer in sorted(ROUTES):
        filed = PREDICATE_STAGE[analyzer]
        routes = ROUTES[analyzer]
        kinds = [kind for kind, _, _ in KIND_TABLE if kind in filed]
        kinds += sorted(JS_OBJECT_PROTOTYPE_MEMBERS - set(kinds))
        for ordinal, kind in enumerate(kinds):
            link = filed.get(kind)
            yield CheckRoute(
                analyzer,
                ordinal,
                kind,
                None if link is None else link.value,
                routes.get(kind, Stage.USER_VALUE).value,
                kind in OBSERVATION_KINDS,
            )


# --------------------------------------------------------------------------- the document
class CoverageLink(StrictModel):
    """One link of one run: what its cases author there and what its trials measured."""

    stage: StageField
    authoring_cases: int
    check_kinds: list[NonEmpty]
    measured: int
    not_applicable: int
    not_measured: int
    advisory: list[NonEmpty]
    unmeasured_by_suite: bool
    suggested_kinds: list[NonEmpty]


class SuiteCoverage(StrictModel):
    """``{"suiteId", "runId", "links": [six links in stage order]}``."""

    suite_id: str | None
    run_id: NonEmpty
    links: list[CoverageLink]
