"""The manifest of a synthetic history (`history.json`): which file imports at which analyzer.

The analyzer version is chosen when a file is imported, so an archive that means some runs to
be derived by the previous analyzer says so here, file by file, with the weeks' dates and what
each run is there to show (`notes`). `read_manifest` validates one and names the field that
does not.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.alias_generators import to_camel

from valuechain.errors import UsageError

MANIFEST_NAME = "history.json"
MANIFEST_KIND: Literal["valuechain.synth.history"] = "valuechain.synth.history"

Note = Literal[
    "analyzer11",  # imported with the previous analyzer: derived at 11 until a recompute
    "configChange",  # the first run of its suite at a new config revision
    "caseSetChange",  # the first run of its suite with another set of cases
    "regression",  # a server deploy breaks the expected tool in about half the trials
    "fix",  # the first run after the regression: the deploy rolled back
    "provisional",  # the judge's second pass is still running: not final, joins no trend
    "noRunGroup",  # an ad-hoc run without a run group: blocked (missingRunGroup)
    "catalogCheck",  # one trial fails a gating toolDescriptionsPresent check (11 vs 12)
]


class _Model(BaseModel):
    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, frozen=True, extra="forbid"
    )


class HistoryRun(_Model):
    """One run of the archive, as its trial roots identify it."""

    run_id: str
    suite_name: str
    suite_id: str
    track: str  # the series it belongs to: nightly, weekly, release, adhoc
    run_group_id: str | None
    config_revision: str
    case_set_fingerprint: str
    started_at: dt.datetime
    week: int = Field(ge=1)
    trials: int = Field(ge=1)
    materialization_state: Literal["final", "provisional"]
    notes: tuple[Note, ...] = ()


class HistoryFile(_Model):
    """One export file of the archive: one week's runs, imported at one analyzer version."""

    path: str  # relative to the manifest's folder
    week: int = Field(ge=1)
    week_start: dt.date
    week_end: dt.date
    analyzer: int
    sha256: str
    bytes: int
    runs: tuple[str, ...]


class HistoryManifest(_Model):
    """What `write_history` wrote, in import order."""

    kind: Literal["valuechain.synth.history"] = MANIFEST_KIND
    version: Literal[1] = 1
    seed: int
    weeks: int
    start: dt.date
    upgrade_week: int  # weeks before it import at analyzer 11, the rest at the current one
    files: tuple[HistoryFile, ...]
    runs: tuple[HistoryRun, ...]

    def to_json(self) -> bytes:
        """The manifest file's bytes (camelCase keys, two-space indents, a final newline)."""
        return orjson.dumps(self.model_dump(mode="json", by_alias=True), option=orjson.OPT_INDENT_2)


def manifest_path(path: str | Path) -> Path:
    """The manifest a path names: the file itself, or `history.json` in a folder."""
    path = Path(path)
    return path / MANIFEST_NAME if path.is_dir() else path


def read_manifest(path: str | Path) -> HistoryManifest:
    """The validated manifest at ``path`` (a manifest file or the archive's folder).

    Raises:
        UsageError: it cannot be read, is not JSON, or a field does not validate.
    """
    file = manifest_path(path)
    hint = "write one with: valuechain synth --history WEEKS --out FOLDER"
    try:
        data = orjson.loads(file.read_bytes())
    except OSError as error:
        raise UsageError(
            str(file), f"cannot read the history manifest ({error.strerror})", hint
        ) from None
    except orjson.JSONDecodeError as error:
        raise UsageError(str(file), f"not JSON ({error})", hint) from None
    try:
        return HistoryManifest.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "(document)"
        raise UsageError(f"{file}: {where}", first["msg"].lower(), hint) from None
