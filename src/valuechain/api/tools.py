"""The public functions that need no store: decode bytes, synthesize a history, scale out on
Ray, read a verdict policy file. Re-exported by `valuechain.api`."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from valuechain.contract.verdict_policy import PolicyFileError, VerdictPolicyFile, parse_policy_file
from valuechain.contract.versions import STAGE_ANALYZER_VERSION
from valuechain.errors import UsageError
from valuechain.ingest.decode import DecodedSource, DecodeOptions, decode_export
from valuechain.materialize.analytics import utc_now
from valuechain.pipeline.progress import ImportProgress
from valuechain.pipeline.scale.job import ScaleSummary, scale_paths
from valuechain.pipeline.sdk_sources import SDK_RESULTS
from valuechain.synth.history import write_history
from valuechain.synth.history_manifest import HistoryManifest


def synth_history(folder: str | Path, *, weeks: int = 6, seed: int = 0) -> HistoryManifest:
    """Write a seeded synthetic history of ``weeks`` weeks into ``folder`` (one export per
    week and `history.json`, what `valuechain synth --history` writes); `Store.import_history`
    builds a store from it."""
    return write_history(folder, weeks=weeks, seed=seed)


def scale(
    paths: Iterable[str | Path],
    out: str | Path,
    *,
    analyzer: int = STAGE_ANALYZER_VERSION,
    overwrite: bool = False,
    clock: Callable[[], dt.datetime] | None = None,
    num_cpus: int = 2,
    progress: ImportProgress | None = None,
) -> ScaleSummary:
    """Derive and materialize exports with Ray Data (``valuechain[ray]``) into ``out``, in the
    export layout; a local Ray of ``num_cpus`` unless ``$RAY_ADDRESS`` names a cluster."""
    return scale_paths(
        paths,
        out,
        analyzer=analyzer,
        overwrite=overwrite,
        clock=clock or utc_now,
        num_cpus=num_cpus,
        progress=progress,
    )


def decode(
    data: bytes | dict[str, Any], source: str = "<memory>", *, salvage: bool = False
) -> DecodedSource:
    """Decode one export's bytes into Arrow span tables, issues and accounting (pure).

    MCPJam SDK results (a report, an array or NDJSON of results, reporter bodies as NDJSON)
    are translated as ``import`` translates them (docs/spec/mcpjam-sdk.md §4): the same trials,
    keyed the same; ``source`` names the suite of loose results, as a file's name does. A run
    with no SDK-made id starts at a fixed instant here, where ``import`` takes the file's
    modification time (§4.1).
    """
    return decode_export(data, source, DecodeOptions(salvage=salvage), sdk=SDK_RESULTS)


def read_policy_file(path: str | Path) -> VerdictPolicyFile:
    """A verdict policy file (TOML by its ``.toml`` suffix, else JSON), validated.

    Raises:
        UsageError: the file cannot be read, or does not parse or validate.
    """
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except OSError as error:
        raise UsageError(str(file), f"cannot read the policy file ({error.strerror})") from None
    try:
        return parse_policy_file(text, toml=file.suffix.lower() == ".toml")
    except PolicyFileError as error:
        raise UsageError(
            str(file), str(error), "see the schema: valuechain schema verdict-policy"
        ) from None
