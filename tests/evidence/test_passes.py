"""The evidence adapter is `evidence.passes.PASSES`, run in order, each pass pure.

`build_trials` must run exactly the listed passes, top to bottom, once each; every pass must
return a new frame and leave the one it was given as it was, so that the same frame in gives
the same frame out. The input conventions are not passes: the first pass runs their readers
(`evidence.readers`), and what the later passes get is the readers' columns, no convention's
keys.
"""

from __future__ import annotations

import dataclasses
import gzip
from pathlib import Path
from typing import Any

import orjson
import polars as pl
import pyarrow as pa
import pytest
from evidence_builders import EXAMPLE, drop_attr, example_spans, request, resource, root

from valuechain.evidence import contract_keys as ck
from valuechain.evidence import passes, readers
from valuechain.evidence.evidence_frame import EvidenceFrame
from valuechain.evidence.readers import columns
from valuechain.evidence.trials import build_trials
from valuechain.ingest.decode import decode_export

FOREIGN = Path("conformance/otlp/07_otel-tui_fileexporter_mixed_signals.ndjson.gz")

# The order a reader of `evidence/passes.py` reads; issues and exclusion codes keep it.
ORDER = [
    "reading_pass",
    "grouping_pass",
    "tree_pass",
    "contract_types_pass",
    "roots_pass",
    "integrity_pass",
    "tools_pass",
    "root_objects_pass",
    "graders_pass",
    "setup_pass",
    "inputs_pass",
    "calls_pass",
    "producer_pass",
    "runs_pass",
    "tables_pass",
]


def _decoded(raw: bytes, name: str) -> tuple[pa.Table, pa.Table, dict[int, str]]:
    decoded = decode_export(raw, name)
    return decoded.tables["spans"], decoded.tables["attributes"], {0: decoded.sha256}


def _example(shared: Path) -> tuple[pa.Table, pa.Table, dict[int, str]]:
    return _decoded((shared / EXAMPLE).read_bytes(), str(EXAMPLE))


def _example_missing_key(shared: Path) -> tuple[pa.Table, pa.Table, dict[int, str]]:
    """The example with one trial root short of a required key: issues and a code."""
    spans = example_spans(shared)
    drop_attr(root(spans), ck.REQUIRED_ROOT_KEYS[0])
    return _decoded(orjson.dumps(request(spans, resource(shared))), "edited.json")


def _foreign(shared: Path) -> tuple[pa.Table, pa.Table, dict[int, str]]:
    return _decoded(gzip.decompress((shared / FOREIGN).read_bytes()), FOREIGN.name)


INPUTS = {"example": _example, "missing-key": _example_missing_key, "foreign": _foreign}


def _same(a: Any, b: Any) -> bool:
    """Equal values, frames compared by content (polars/Arrow `==` is element-wise)."""
    if isinstance(a, pl.DataFrame | pl.Series | pa.Table):
        return type(a) is type(b) and a.equals(b)
    if dataclasses.is_dataclass(a) and not isinstance(a, type):
        return type(a) is type(b) and all(
            _same(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a)
        )
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple):
        return type(a) is type(b) and len(a) == len(b) and all(map(_same, a, b))
    return bool(a == b)


def test_passes_are_listed_in_order() -> None:
    assert [p.__name__ for p in passes.PASSES] == ORDER


@pytest.mark.parametrize("name", list(INPUTS))
def test_build_trials_runs_the_passes_in_order_once(
    shared: Path, name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    spans, attributes, sources = INPUTS[name](shared)
    plain = build_trials(spans, attributes, source_runs=sources)
    ran: list[str] = []

    def recorded(step: passes.Pass) -> passes.Pass:
        def run(frame: EvidenceFrame) -> EvidenceFrame:
            ran.append(step.__name__)
            return step(frame)

        return run

    monkeypatch.setattr(passes, "PASSES", tuple(recorded(p) for p in passes.PASSES))
    watched = build_trials(spans, attributes, source_runs=sources)
    assert ran == ORDER
    assert _same(watched, plain)


@pytest.mark.parametrize("name", list(INPUTS))
def test_each_pass_is_pure(shared: Path, name: str) -> None:
    spans, attributes, sources = INPUTS[name](shared)
    frame = EvidenceFrame(spans, attributes, source_runs=sources)
    twin = EvidenceFrame(spans, attributes, source_runs=sources)  # built alike, never passed on
    for step in passes.PASSES:
        out = step(frame)
        assert out is not frame, step.__name__
        assert _same(step(frame), out), f"{step.__name__}: same frame in, another frame out"
        assert _same(frame, twin), f"{step.__name__} changed the frame it was given"
        frame, twin = out, step(twin)
    assert frame.trial_table is not None and frame.trial_table.num_rows > 0
    if name == "missing-key":
        assert frame.codes and frame.issues  # the checks that add codes and issues were run


@pytest.mark.parametrize("name", list(INPUTS))
def test_later_passes_get_the_readers_columns_not_the_conventions_keys(
    shared: Path, name: str
) -> None:
    spans, attributes, sources = INPUTS[name](shared)
    read = passes.PASSES[0](EvidenceFrame(spans, attributes, source_runs=sources))
    assert read.spans is not None
    assert set(columns.COLUMNS) <= set(read.spans.columns)
    assert not set(readers.KEYS) & set(read.spans.columns)
    assert "oi" not in read.spans.columns


def test_a_pass_before_what_it_reads_is_refused(shared: Path) -> None:
    spans, attributes, sources = _example(shared)
    with pytest.raises(RuntimeError, match="roots"):
        passes.PASSES[-1](EvidenceFrame(spans, attributes, source_runs=sources))
