"""Model steps and the observed variant of a trial (TRACE-FORMAT §2.2, §3.8).

A model step is a contract `llm` span, a span a convention declares a model call
(`model_step`: an OpenInference `LLM` span, a GenAI inference operation) or — outside the
contract — a span that names a model and no operation (`names_model`, an instrumentation
older than the operation name; `readers.genai`). The observed variant takes the provider and
the model each from the first span that carries it — model steps first, then the spans whose
kind a convention declares, then the rest, each by start time; the model is the requested
one, else the serving one.
"""

from __future__ import annotations

import polars as pl

from valuechain.evidence import contract_keys as ck
from valuechain.evidence.readers import columns as c


def inference_span() -> pl.Expr:
    """Whether a span row of a trial's spans is a model step (see the module docstring)."""
    contract = pl.col("t_contract")
    return (
        (contract & (pl.col("role") == ck.Role.LLM))
        | pl.col(c.MODEL_STEP)
        | (~contract & pl.col(c.NAMES_MODEL))
    )


def observed_variant(st: pl.DataFrame, is_llm: pl.Expr) -> pl.DataFrame:
    """Per trial index: `observed_provider` and `observed_model`, each from the first span
    carrying it (model steps first, then spans of a declared kind, then the rest)."""
    later = pl.when(is_llm).then(0).when(pl.col(c.KIND_DECLARED)).then(1).otherwise(2)
    ranked = st.with_columns(later.alias("_later")).sort(
        "trial_index", "_later", "start_ns", "span_row", nulls_last=True
    )
    model = pl.coalesce(c.REQUEST_MODEL, c.RESPONSE_MODEL)
    return ranked.group_by("trial_index").agg(
        pl.col(c.PROVIDER).drop_nulls().first().alias("observed_provider"),
        model.drop_nulls().first().alias("observed_model"),
    )
