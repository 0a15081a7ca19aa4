"""The tools pass: vectorised preparation of tool spans (TRACE-FORMAT §2.4, §3.7).

Every span that may describe a tool call gets, once, what the mapping reads: its status,
error code and kind (§3.7, §3.8), its prompt index (§3.7.1 (5)) and whether its trial needs
the §2.4 join rules at all; frames are in the `groups.by_trial` order. The calls table, one
row per logical call, is the `calls` pass, after the assembler joined the calls it walks.
"""

from __future__ import annotations

from dataclasses import replace

import polars as pl

from valuechain.contract.issues import Code
from valuechain.contract.vocab import ToolErrorKind
from valuechain.evidence import contract_keys as ck
from valuechain.evidence import mcp_spans
from valuechain.evidence.attributes import Attributes
from valuechain.evidence.contract_keys import OwnerClass
from valuechain.evidence.evidence_frame import EvidenceFrame, need
from valuechain.evidence.frames import epoch_ms
from valuechain.evidence.groups import by_trial, gather_class, groups
from valuechain.evidence.issues import (
    ORIGIN_UNKNOWN_MESSAGE,
    TRANSPORT_MESSAGE,
    EvidenceIssue,
    TrialLog,
)
from valuechain.evidence.readers import columns as c
from valuechain.evidence.toolcalls import CLIENT_KIND

TOOL_COLUMNS = (
    "span",
    "parent",
    "kind",
    "is_role",
    "is_execution",
    "is_transport",
    "call_id",
    "tool_name",
    "request_id",
    "mcp_session",
    "code",
    "outcome",
    "status",
    "errored",
    "executed",
    "error_type",
    "content_error",
    "origin_unknown",
    "error_kind",
    "evidence",
    "prompt_index",
    "start_ms",
    "end_ms",
    "simple",
)


def tools_pass(frame: EvidenceFrame) -> EvidenceFrame:
    """Fills `tools` and `tool_groups`; adds the transport errors of one-span calls (those of
    joined calls: `inputs`)."""
    roots, log = need(frame.roots, "roots"), TrialLog()
    tools = tool_frame(need(frame.st, "st"), need(frame.attrs, "attrs"))
    report_transport_errors(tools, roots, log)
    tool_groups = groups(tools, TOOL_COLUMNS, roots.height)
    return replace(frame, tools=tools, tool_groups=tool_groups, issues=frame.logged(log))


def tool_frame(st: pl.DataFrame, attrs: Attributes) -> pl.DataFrame:
    """Every span that may describe a tool call (§2.4), with what the mapping reads."""
    contract = pl.col("t_contract")
    is_role = contract & (pl.col("role") == ck.Role.TOOL_CALL)
    tools = by_trial(st.filter(is_role | mcp_spans.is_tool_span()))
    outcome = pl.when(contract).then(pl.col(c.TOOL_OUTCOME))
    # the readers' columns `is_execution`, `call_id`, `tool_name`, `request_id`,
    # `mcp_session`, `error_type` and `content_error` are read as they are
    tools = tools.with_columns(
        is_role.alias("is_role"),
        mcp_spans.is_transport().alias("is_transport"),
        pl.col(c.ERROR_CODE).alias("code"),
        outcome.alias("outcome"),
        epoch_ms(pl.col("start_ns")).alias("start_ms"),
        epoch_ms(pl.col("end_ns")).alias("end_ms"),
    )
    # §3.7: status error when span status is ERROR or the outcome is not ok;
    # §3.8 (foreign): span status ERROR or error.type set.
    errored = (pl.col("status_code") == 2) | pl.when(contract).then(
        pl.col("outcome").is_not_null() & (pl.col("outcome") != ck.TOOL_OUTCOME_OK)
    ).otherwise(pl.col("error_type").is_not_null())
    executed = pl.col("outcome").is_null() | (pl.col("outcome") != ck.TOOL_OUTCOME_NOT_EXECUTED)
    kind_by_outcome = pl.col("outcome").replace_strict(
        dict(ck.TOOL_ERROR_KIND_BY_OUTCOME), default=None, return_dtype=pl.String
    )
    error_kind = pl.when(errored).then(
        pl.when(pl.col("outcome").is_not_null())
        .then(kind_by_outcome)
        .when(pl.col("code").is_not_null())
        .then(pl.lit(ToolErrorKind.PROTOCOL_ERROR.value))
        .when(pl.col("content_error"))
        .then(pl.lit(ToolErrorKind.CONTENT_ERROR.value))
        .when(pl.col("origin_unknown"))
        .then(pl.lit(ToolErrorKind.PROTOCOL_ERROR.value))
    )
    tools = tools.with_columns(
        errored.fill_null(False).alias("errored"),
        (errored & origin_unknown()).fill_null(False).alias("origin_unknown"),
    )
    tools = tools.with_columns(
        executed.alias("executed"),
        pl.when(errored).then(pl.lit("error")).otherwise(pl.lit("ok")).alias("status"),
        error_kind.alias("error_kind"),
        (executed & (pl.col("is_role") | ~contract)).alias("evidence"),
        _prompt_index(tools, st, attrs),
    )
    return tools.with_columns(_simple(tools))


def origin_unknown() -> pl.Expr:
    """A failure whose origin the span does not show (issue 39): no producer outcome, no
    JSON-RPC code, no `error.type`, no `isError` result. It is read as TRACE-FORMAT §3.7 reads
    a transport failure without a code: a protocol-error record (Tool call fails
    `protocolError`), the span itself failed without a code, and the reader says so
    (`W_TRANSPORT_ERROR_WITHOUT_CODE`) rather than invent a code."""
    return (
        pl.col("outcome").is_null()
        & pl.col("code").is_null()
        & pl.col("error_type").is_null()
        & ~pl.col("content_error")
    )


def _simple(tools: pl.DataFrame) -> pl.Series:
    """Per row: whether its trial's tool spans are one span per call (no §2.4 join applies)."""
    call_ids = tools.filter(pl.col("call_id").is_not_null())
    shared_id = call_ids.filter(pl.len().over("trial_index", "call_id") > 1)["trial_index"]
    # (b): a tools/call span under an execution span, or a SERVER one under a CLIENT one
    outer = tools.filter(
        pl.col("is_execution") | (pl.col("is_transport") & (pl.col("kind") == CLIENT_KIND))
    ).select("trial_index", pl.col("span").alias("parent"))
    nested = tools.filter(pl.col("is_transport")).join(
        outer, on=["trial_index", "parent"], how="semi"
    )["trial_index"]
    pairs = tools.filter(
        pl.col("is_transport")
        & pl.col("request_id").is_not_null()
        & pl.col("mcp_session").is_not_null()
    )
    paired = pairs.filter(pl.len().over("trial_index", "request_id", "mcp_session") > 1)[
        "trial_index"
    ]
    joined = pl.concat([shared_id, nested, paired]).unique()
    return (~tools["trial_index"].is_in(joined.implode())).alias("simple")


def _prompt_index(
    tools: pl.DataFrame, st: pl.DataFrame, attrs: Attributes, depth: int = 6
) -> pl.Series:
    """`mcp.app.turn.index` of the nearest enclosing turn (contract traces; §3.7.1 (5))."""
    if tools.is_empty():
        return pl.Series("prompt_index", [], dtype=pl.Int64)
    turns = st.filter(pl.col("t_contract") & (pl.col("role") == ck.Role.TURN))
    turns = pl.concat(
        [
            turns.select("trace", pl.col("span").alias("cur")),
            gather_class(attrs, OwnerClass.TURN, turns, pl.lit(True)).select(
                pl.col("mcp.app.turn.index").alias("turn_index")
            ),
        ],
        how="horizontal",
    ).with_columns(pl.lit(True).alias("n_turn"))
    # a turn stored twice (a conflicting duplicate, §5.2) is one node of the walk: its first row
    turns = turns.unique(["trace", "cur"], keep="first", maintain_order=True)
    nodes = (
        st.filter(pl.col("t_contract"))
        .select("trace", pl.col("span").alias("cur"), pl.col("parent").alias("n_parent"))
        .unique(["trace", "cur"], keep="first", maintain_order=True)
        .join(turns, on=["trace", "cur"], how="left")
    )
    walk = tools.select(
        pl.int_range(pl.len()).alias("_row"),
        "trace",
        pl.col("parent").alias("cur"),
        pl.lit(None, dtype=pl.Int64).alias("idx"),
        pl.lit(False).alias("done"),
    )
    for _ in range(depth):
        walk = walk.join(nodes, on=["trace", "cur"], how="left", maintain_order="left")
        turn = pl.col("n_turn").fill_null(False) & ~pl.col("done")
        walk = walk.select(
            "_row",
            "trace",
            pl.col("n_parent").alias("cur"),
            pl.when(turn).then(pl.col("turn_index")).otherwise(pl.col("idx")).alias("idx"),
            (pl.col("done") | turn | pl.col("n_parent").is_null()).alias("done"),
        )
        if walk["done"].all():
            break
    return walk.sort("_row")["idx"].alias("prompt_index")


def report_transport_errors(tools: pl.DataFrame, roots: pl.DataFrame, log: TrialLog) -> None:
    """`W_TRANSPORT_ERROR_WITHOUT_CODE` for one-span calls (joined calls: in the assembler):
    a contract `transport_error` without a code, or a failure of unknown origin."""
    transport = (
        pl.col("is_role") & (pl.col("outcome") == ck.TRANSPORT_ERROR) & pl.col("code").is_null()
    )
    unknown = pl.col("evidence") & pl.col("origin_unknown")
    bad = tools.filter(pl.col("simple") & (transport.fill_null(False) | unknown)).join(
        roots.select("trial_index", "trial_id", "run_id"), on="trial_index"
    )
    for trace, span, trial_id, run_id, is_unknown in bad.select(
        "trace", "span", "trial_id", "run_id", "origin_unknown"
    ).iter_rows():
        log.add(
            EvidenceIssue(
                Code.W_TRANSPORT_ERROR_WITHOUT_CODE,
                ORIGIN_UNKNOWN_MESSAGE if is_unknown else TRANSPORT_MESSAGE,
                trace_id=trace,
                span_id=span,
                trial_id=trial_id,
                run_id=run_id,
                key=None if is_unknown else "mcp.app.tool.outcome",
            )
        )
