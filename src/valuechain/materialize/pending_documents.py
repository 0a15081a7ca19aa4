"""Runs whose chains are stored without their analytics documents: the pending state a derive
stopped between its chains and its documents leaves (``sql/query/runs_without_documents.sql``).
`runs` and every read names them; the next writing command materializes them."""

from __future__ import annotations

from dataclasses import dataclass

import duckdb

from valuechain.contract.words import plural
from valuechain.store import sqlfiles

_QUERY = "query/runs_without_documents.sql"


@dataclass(frozen=True, slots=True)
class PendingDocuments:
    """The runs whose documents are missing or older than their chains."""

    run_ids: tuple[str, ...]

    def render(self) -> str:
        """One line for the user: the state and the fix."""
        shown = ", ".join(self.run_ids[:5]) + (" …" if len(self.run_ids) > 5 else "")
        return (
            f"{plural(len(self.run_ids), 'run')} {'has' if len(self.run_ids) == 1 else 'have'} "
            "chains but missing or outdated analytics "
            f"documents ({shown}): a derive stopped before writing them. Hint: run valuechain "
            "derive (or any import): it writes them first"
        )


def pending_documents(con: duckdb.DuckDBPyConnection) -> PendingDocuments | None:
    """The runs whose documents are pending; None when every run's are in place."""
    rows = con.execute(sqlfiles.statement(_QUERY).text).fetchall()
    return PendingDocuments(tuple(str(r[0]) for r in rows)) if rows else None
