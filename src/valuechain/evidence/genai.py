"""Model steps and the observed variant of a trial, as GenAI instrumentations write them.

An inference span is a contract `llm` span, an OpenInference `LLM` span, a GenAI inference
operation (`chat`, `text_completion`, `generate_content`, TRACE-FORMAT §2.2) — or, outside the
contract, a span that names a model (`gen_ai.request.model` / `gen_ai.response.model`) with no
`gen_ai.operation.name` at all: instrumentations written before the operation name existed
(OpenLLMetry's `openai.chat`, …) mark their model calls that way. A span naming another
operation (`invoke_agent`, `execute_tool`) is never one, so an agent's summed usage is not
counted twice. The observed variant (§3.8) takes the provider and the model each from the
first span that carries it — inference spans first, then any span of the trial.
"""

from __future__ import annotations

import polars as pl

from valuechain.evidence import contract_keys as ck
from valuechain.evidence import conventions as cv
from valuechain.evidence.frames import first_non_null

_MODEL_KEYS = (*cv.REQUEST_MODEL, *cv.RESPONSE_MODEL)


def inference_span(st: pl.DataFrame) -> pl.Expr:
    """Whether a span row of ``st`` is a model step (see the module docstring)."""
    names_model = (
        ~pl.col("t_contract")
        & pl.col(cv.GENAI_OPERATION).is_null()
        & first_non_null(st, ("gen_ai.request.model", "gen_ai.response.model")).is_not_null()
    )
    return (
        (pl.col("t_contract") & (pl.col("role") == ck.Role.LLM))
        | (pl.col("oi") == "LLM")
        | pl.col(cv.GENAI_OPERATION).is_in(cv.INFERENCE_OPERATIONS).fill_null(False)
        | names_model.fill_null(False)
    )


def observed_variant(st: pl.DataFrame, is_llm: pl.Expr) -> pl.DataFrame:
    """Per trial index: `observed_provider` and `observed_model`, each from the first span
    carrying it (inference spans first, then by start time)."""
    ranked = st.with_columns(is_llm.not_().alias("_later")).sort(
        "trial_index", "_later", "start_ns", "span_row", nulls_last=True
    )
    return ranked.group_by("trial_index").agg(
        first_non_null(ranked, cv.PROVIDER).drop_nulls().first().alias("observed_provider"),
        first_non_null(ranked, _MODEL_KEYS).drop_nulls().first().alias("observed_model"),
    )
