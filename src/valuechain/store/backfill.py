"""Checks a migration runs over stored rows, in Python because their rule is the contract's.

A store written before schema version 12 never checked the producer's persisted measurements
against its persisted chain (CONTRACT §4, §7.4; TRACE-FORMAT §5.2 `W_CHAIN_INVALID`). The
migration to 12 runs the one implementation of that check (`contract.measurements`, as the
evidence adapter does on import) on what the store holds, so a migrated store holds what a
fresh import of the same exports holds. Only `core.trial_outcome.measurements_agree` is
written; nothing the producer sent is changed.
"""

from __future__ import annotations

import duckdb
import pyarrow as pa

from valuechain.contract.measurements import check_persisted
from valuechain.store import sqlfiles

_CHECKED = pa.schema(
    [
        pa.field("trial_id", pa.string()),
        pa.field("run_id", pa.string()),
        pa.field("analyzer_version", pa.int32()),
        pa.field("agree", pa.bool_()),
    ]
)


def check_producer_measurements(con: duckdb.DuckDBPyConnection) -> int:
    """Record on every stored producer chain with measurements whether they agree with it
    (left NULL for a chain failing §2.1 or ahead of this reader, as on import). Returns the
    rows checked."""
    rows = con.execute(sqlfiles.statement("store/400_producer_measurements.sql").text).fetchall()
    checked: dict[str, list[object]] = {name: [] for name in _CHECKED.names}
    for trial_id, run_id, version, first, category, schema, chain_rows, measured in rows:
        sent = (
            None
            if measured is None
            else [(m["idx"], m["reach"], m["latency_ms"]) for m in measured]
        )
        _, problems = check_persisted(
            ((r["stage"], r["state"], r["reason"], r["evidence"]) for r in chain_rows),
            (version, first, category),
            sent,
            schema,
        )
        if problems is None:
            continue
        for name, value in zip(
            _CHECKED.names, (trial_id, run_id, version, not problems), strict=True
        ):
            checked[name].append(value)
    if checked["trial_id"]:
        con.register("checked_measurements", pa.table(checked, schema=_CHECKED))
        try:
            con.execute(sqlfiles.statement("store/401_update_measurements_agree.sql").text)
        finally:
            con.unregister("checked_measurements")
    return len(checked["trial_id"])
