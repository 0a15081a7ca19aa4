"""Read one run's stage analytics: its document, or its funnel rows with rates.

Which document a reader sees (DESIGN.md, CONTRACT Q1): valuechain's own derived chains at the
current analyzer unless asked otherwise — ``analyzer=N`` for derived chains at analyzer N, or
``chains="producer"`` for the producer's persisted chains (read at the current analyzer) —
never a mix. Three absences stay distinct (CONTRACT §5.10): a run that does not exist raises
`UsageError`; a run without that document gives ``None`` (render it as UNMEASURED, never as
an empty funnel); a deployment without the route is not this module's business.
"""

from __future__ import annotations

from typing import Final, Literal

import duckdb
import polars as pl

from valuechain.contract.documents import StageAnalyticsV1
from valuechain.contract.versions import STAGE_ANALYZER_VERSION
from valuechain.contract.vocab import SliceDimension
from valuechain.errors import UsageError
from valuechain.query.statements import query_rows

ChainSource = Literal["derived", "producer"]
CHAIN_SOURCES: Final[tuple[str, ...]] = ("derived", "producer")
SLICE_CHOICES: Final[tuple[str, ...]] = (*(d.value for d in SliceDimension), "all")


def document_key(chains: str = "derived", analyzer: int | None = None) -> tuple[str, int]:
    """The (chain source, reader analyzer version) a request names; bad values are refused."""
    if chains not in CHAIN_SOURCES:
        raise UsageError(
            f"chains={chains!r}", "unknown chain source", "use 'derived' or 'producer'"
        )
    version = STAGE_ANALYZER_VERSION if analyzer is None else analyzer
    if type(version) is not int or version < 1:
        raise UsageError(f"analyzer={analyzer!r}", "not an analyzer version", "use an integer ≥ 1")
    if chains == "producer" and version != STAGE_ANALYZER_VERSION:
        raise UsageError(
            f"analyzer={analyzer!r}",
            "producer chains are read by the current analyzer only",
            f"omit --analyzer or pass {STAGE_ANALYZER_VERSION} with --chains producer",
        )
    return chains, version


def run_exists(con: duckdb.DuckDBPyConnection, run_id: str) -> bool:
    """Whether the store holds any trial of ``run_id``."""
    return bool(query_rows(con, "query/run_exists.sql", {"run_id": run_id})[0]["found"])


def suite_exists(con: duckdb.DuckDBPyConnection, suite_id: str) -> bool:
    """Whether the store holds any trial of the suite ``suite_id``."""
    return bool(query_rows(con, "query/suite_exists.sql", {"suite_id": suite_id})[0]["found"])


def require_run(con: duckdb.DuckDBPyConnection, run_id: str) -> None:
    """Raise `UsageError` unless ``run_id`` exists (the first of the three absences)."""
    if not run_exists(con, run_id):
        raise UsageError(run_id, "no such run in the store", "list the runs: valuechain runs")


def document_keys(con: duckdb.DuckDBPyConnection, run_id: str) -> list[tuple[str, int]]:
    """Every (chain source, analyzer version) ``run_id`` has a document for."""
    rows = con.execute(
        "SELECT chain_source, analyzer_version FROM core.analytics_documents "
        "WHERE run_id = $run_id ORDER BY chain_source, analyzer_version",
        {"run_id": run_id},
    ).fetchall()
    return [(str(source), int(version)) for source, version in rows]


def analytics_document(
    con: duckdb.DuckDBPyConnection,
    run_id: str,
    *,
    chains: str = "derived",
    analyzer: int | None = None,
) -> StageAnalyticsV1 | None:
    """The run's `EvalStageAnalyticsV1`, or None when the run exists without one.

    Raises:
        UsageError: the run does not exist, or ``chains`` / ``analyzer`` are invalid.
    """
    source, version = document_key(chains, analyzer)
    require_run(con, run_id)
    rows = con.execute(
        "SELECT document FROM core.analytics_documents "
        "WHERE run_id = $run_id AND chain_source = $source AND analyzer_version = $version",
        {"run_id": run_id, "source": source, "version": version},
    ).fetchall()
    return StageAnalyticsV1.from_json(rows[0][0]) if rows else None


def funnel_frame(
    con: duckdb.DuckDBPyConnection,
    run_id: str,
    slice: str = "overall",
    chains: str = "derived",
    analyzer: int | None = None,
) -> pl.DataFrame:
    """The run's funnel rows with the three rates (view ``stage_rates``), in emission order.

    ``slice`` picks a dimension (``overall``, ``intent``, ``model``, ``host``) or ``all``.
    An EMPTY frame means the run has no such document — unmeasured, never an empty funnel
    (a document always has the six rows of its ``overall`` slice); check `analytics_document`
    to tell it from a dimension without slices.

    Raises:
        UsageError: the run does not exist, or an argument is invalid.
    """
    if slice not in SLICE_CHOICES:
        raise UsageError(
            f"slice={slice!r}", "unknown slice dimension", f"use one of {', '.join(SLICE_CHOICES)}"
        )
    source, version = document_key(chains, analyzer)
    require_run(con, run_id)
    relation = con.sql(
        "SELECT * FROM main.stage_rates "
        "WHERE run_id = $run_id AND chain_source = $source AND analyzer_version = $version "
        "AND ($slice = 'all' OR slice_dimension = $slice) "
        "ORDER BY slice_index, stage_index",
        params={"run_id": run_id, "source": source, "version": version, "slice": slice},
    )
    frame = pl.from_arrow(relation.to_arrow_table())
    assert isinstance(frame, pl.DataFrame)
    return frame
