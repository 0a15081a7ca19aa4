"""The reading pass: the batch's span and attribute rows as the spans frame the passes read.

Spans are normalised (`frames.normalise_spans`), their attribute rows read by key class
(`attributes.read_attributes`: every convention's keys — the valuechain eval convention,
OpenInference, GenAI, OTel MCP, traceloop — land in their own columns there, so no later pass
branches on where a value came from), and each span row gets its resource's columns and the
columns every owner class reads.
"""

from __future__ import annotations

from dataclasses import replace

import polars as pl

from valuechain.evidence.attributes import read_attributes
from valuechain.evidence.contract_keys import OwnerClass
from valuechain.evidence.evidence_frame import EvidenceFrame
from valuechain.evidence.frames import normalise_spans


def reading_pass(frame: EvidenceFrame) -> EvidenceFrame:
    """Fills `spans` and `attrs` from the input rows."""
    s = normalise_spans(frame.span_rows)
    attrs = read_attributes(frame.attribute_rows, s)
    s = s.join(attrs.resources, on="resource_row", how="left", maintain_order="left")
    s = pl.concat(
        [s.with_columns(pl.col("contract").fill_null(False)), attrs.wide[OwnerClass.ALL]],
        how="horizontal",
    )
    return replace(frame, spans=s, attrs=attrs)
