"""The coverage views' vocabulary is the contract's: `core.check_routes` holds exactly
`contract.coverage.check_route_rows()` (the routing of `contract.predicates`, CONTRACT §2.5,
§3.2) and `core.coverage_stages` the six links with the runner's two."""

from __future__ import annotations

import pytest

from valuechain.contract.coverage import OBSERVATION_KINDS, RUNNER_DECIDED, check_route_rows
from valuechain.contract.predicates import KIND_TABLE, PREDICATE_STAGE
from valuechain.contract.vocab import Stage
from valuechain.derive.routing import routed_stage
from valuechain.store import Database


def test_check_routes_view_is_the_contracts_table(db: Database) -> None:
    rows = db.con.execute(
        "SELECT * FROM core.check_routes ORDER BY analyzer_version, ordinal"
    ).fetchall()
    assert rows == [tuple(r) for r in check_route_rows()], (
        "sql/views/150_check_routes.sql is out of step with contract.predicates: "
        "regenerate its VALUES from contract.coverage.check_route_rows()"
    )


@pytest.mark.parametrize("analyzer", [11, 12])
def test_every_route_is_derivations(analyzer: int) -> None:
    rows = [r for r in check_route_rows() if r.analyzer_version == analyzer]
    for r in rows:
        assert r.routed_stage == routed_stage(r.kind, analyzer).value
        assert r.filed_link == (
            None
            if r.kind not in PREDICATE_STAGE[analyzer]
            else PREDICATE_STAGE[analyzer][r.kind].value
        )
    assert {r.kind for r in rows} >= set(PREDICATE_STAGE[analyzer])


def test_observation_kinds_are_catalogue_kinds() -> None:
    catalogue = {kind for kind, _, _ in KIND_TABLE}
    assert catalogue >= OBSERVATION_KINDS and len(OBSERVATION_KINDS) == 6  # Q4: six


def test_coverage_stages_view_is_the_chain(db: Database) -> None:
    rows = db.con.execute("SELECT * FROM core.coverage_stages ORDER BY stage_index").fetchall()
    assert rows == [(i, s.value, s in RUNNER_DECIDED) for i, s in enumerate(Stage)]
