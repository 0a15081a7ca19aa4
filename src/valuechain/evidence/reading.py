"""The reading pass: the batch's span and attribute rows as the spans frame the passes read.

Spans are normalised (`frames.normalise_spans`) and their attribute rows read by key class
(`attributes.read_attributes`); then the convention readers (`evidence.readers`: the
valuechain eval convention, OpenInference, GenAI, OTel MCP, traceloop) turn what each
convention wrote on a span into the normalised columns (`readers.columns`), which replace the
conventions' own keys: no later pass reads a convention's key or branches on where a value
came from. Each span row also gets its resource's columns.
"""

from __future__ import annotations

from dataclasses import replace

import polars as pl

from valuechain.evidence.attributes import read_attributes
from valuechain.evidence.contract_keys import OwnerClass
from valuechain.evidence.evidence_frame import EvidenceFrame
from valuechain.evidence.frames import normalise_spans
from valuechain.evidence.readers import read_conventions


def reading_pass(frame: EvidenceFrame) -> EvidenceFrame:
    """Fills `spans` and `attrs` from the input rows."""
    s = normalise_spans(frame.span_rows)
    attrs = read_attributes(frame.attribute_rows, s)
    # every span's wide keys are the readers' (`conventions.READ_KEYS`)
    said = pl.concat([s.select("name", "oi"), attrs.wide[OwnerClass.ALL]], how="horizontal")
    s = s.join(attrs.resources, on="resource_row", how="left", maintain_order="left")
    s = pl.concat(
        [s.with_columns(pl.col("contract").fill_null(False)).drop("oi"), read_conventions(said)],
        how="horizontal",
    )
    return replace(frame, spans=s, attrs=attrs)
