"""A damaged store is refused before it is changed (issue 38.3): every command that opens a
store, on a store cut short or with a flipped byte in a block of table data, prints the one
damaged-store line, exits 1, and leaves the file's bytes as they were, no write-ahead log
beside it.

The flipped byte sits in the block of ``core.meta`` (every open reads it) and, for the commands
that read spans, in the first block of ``core.spans``. A command that never reads a damaged
block does not meet the damage: only a full read (`integrity.scan`) finds it, and that runs
before an open writes on its own account (a write-ahead log, set-up, an undo).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pytest
from cli_runner import red_line, run
from store_damage import flipped

Args = Callable[["Damaged"], tuple[str | Path, ...]]


@dataclass(frozen=True, slots=True)
class Damaged:
    """The damaged variants of one small store, and what the commands need to name."""

    folder: Path
    variants: dict[str, bytes]
    export: Path  # an export the store does not hold yet: an import would write it
    runs: tuple[str, str]
    trial: str


@pytest.fixture(scope="module")
def damaged(tmp_path_factory: pytest.TempPathFactory) -> Damaged:
    folder = tmp_path_factory.mktemp("damaged")
    exports = [folder / "a.json", folder / "b.json"]
    for seed, export in enumerate(exports):
        made = run(
            "synth",
            "--runs",
            "2",
            "--cases",
            "2",
            "--models",
            "1",
            "--reps",
            "1",
            "--seed",
            str(seed),
            "--out",
            export,
        )
        assert made.exit_code == 0, made.output
    store = folder / "clean.duckdb"
    assert run("--store", store, "-q", "import", exports[0]).exit_code == 0
    data = store.read_bytes()
    with duckdb.connect(str(store), read_only=True) as con:
        found = con.execute("SELECT DISTINCT run_id FROM core.trials ORDER BY 1").fetchall()
        runs = [r for (r,) in found]
        trial = con.execute("SELECT min(trial_id) FROM core.trials").fetchall()[0][0]
    variants = {
        "cut short": data[: len(data) // 2],
        "meta block flipped": flipped(store, "meta"),
        "spans block flipped": flipped(store, "spans"),
    }
    return Damaged(folder, variants, exports[1], (runs[0], runs[1]), trial)


# Every command that opens a store, with the arguments it needs.
COMMANDS: dict[str, Args] = {
    "runs": lambda d: ("runs",),
    "import": lambda d: ("import", d.export),
    "derive": lambda d: ("derive",),
    "materialize": lambda d: ("materialize",),
    "sql": lambda d: ("sql", "SELECT count(*) FROM spans"),
    "funnel": lambda d: ("funnel", d.runs[0]),
    "trial": lambda d: ("trial", d.trial),
    "verify": lambda d: ("verify",),
    "verdict": lambda d: ("verdict", d.runs[0]),
    "coverage": lambda d: ("coverage",),
    "compare": lambda d: ("compare", *d.runs),
    "trend": lambda d: ("trend",),
    "export": lambda d: ("export", "--parquet", d.folder / "lake"),
    "issues": lambda d: ("issues",),
    "report": lambda d: ("report", "--out", d.folder / "report.html"),
    "recompute": lambda d: ("recompute",),
    "recompute --dry-run": lambda d: ("recompute", "--dry-run"),
    "store info": lambda d: ("store", "info"),
    "store vacuum": lambda d: ("store", "vacuum"),
    "store purge-content": lambda d: ("store", "purge-content"),
    "store delete": lambda d: ("store", "delete", "--run", d.runs[0]),
    "store migrate": lambda d: ("store", "migrate"),
}
# The commands that read the spans table (the others never meet a damaged block of it).
READ_SPANS = (
    "runs",
    "derive",
    "materialize",
    "sql",
    "funnel",
    "trial",
    "coverage",
    "export",
    "report",
    "recompute",
    "recompute --dry-run",
    "store info",
    "store vacuum",
    "store delete",
)
CASES = [
    *((damage, name) for damage in ("cut short", "meta block flipped") for name in COMMANDS),
    *(("spans block flipped", name) for name in READ_SPANS),
]
SAID = {
    "cut short": "(cut short: ",
    "meta block flipped": "(Corrupt database file: computed checksum ",
    "spans block flipped": "(Corrupt database file: computed checksum ",
}

HINT = "the file is damaged: restore a copy of the store, or point --store elsewhere"


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize(("damage", "command"), CASES, ids=[f"{d}-{c}" for d, c in CASES])
def test_a_damaged_store_is_refused_unchanged(
    damaged: Damaged, tmp_path: Path, damage: str, command: str
) -> None:
    store = tmp_path / "s.duckdb"
    store.write_bytes(damaged.variants[damage])
    before = _sha256(store), store.stat().st_size
    result = run("--store", store, *COMMANDS[command](damaged))
    assert result.exit_code == 1, result.output
    line = red_line(result)
    assert line.startswith(f"error: {store}: the store file is damaged {SAID[damage]}"), line
    assert line.endswith(f"hint: {HINT}"), line
    assert (_sha256(store), store.stat().st_size) == before
    beside = {p.name for p in tmp_path.iterdir()} - {"s.duckdb", ".s.duckdb.exports"}
    assert not beside  # no .wal, no work copy (an export records its target first, by design)
