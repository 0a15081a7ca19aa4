"""Vectorised preparation of each trial's parts, for `inputs.Assembler` (TRACE-FORMAT §3.7).

Every frame here is sorted by (trial_index, start time, span_row) and cut into per-trial
ranges. Values that depend only on one row (a tool span's status and error kind, a grader
row's object) are computed here, once, so that the per-trial walk only assembles objects.

One module over the ~400-line guide, on purpose: every step relies on the one sort order
and per-trial ranges set up at the top; kept together so that invariant is stated once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from valuechain.contract.derivation import IterationInfo, StageAuthoredCase
from valuechain.contract.issues import Code
from valuechain.contract.vocab import ToolErrorKind
from valuechain.evidence import contract_keys as ck
from valuechain.evidence import conventions as cv
from valuechain.evidence.attributes import Attributes
from valuechain.evidence.authored import authored_as_sent
from valuechain.evidence.contract_keys import OwnerClass
from valuechain.evidence.frames import epoch_ms, first_non_null, parse_int_code
from valuechain.evidence.inputs import (
    GRADER_ATTRIBUTION,
    GRADER_JUDGE,
    GRADER_PREDICATE,
    GRADER_PROMPT,
    RootObjects,
    TrialGroups,
)
from valuechain.evidence.issues import EvidenceIssue, IssueLog
from valuechain.evidence.objects import (
    JUDGE_COLUMNS,
    PREDICATE_COLUMNS,
    PROMPT_COLUMNS,
    interned,
    make_attribution,
    make_judge,
    make_policy,
    make_predicate,
    make_prompt,
    make_signal,
    make_step_error,
    make_tool_signals,
)


def offsets(frame: pl.DataFrame, n: int) -> list[int]:
    """Row where each trial's range starts in `frame` (sorted by trial_index), plus the end."""
    if frame.is_empty():
        return [0] * (n + 1)
    found = frame["trial_index"].search_sorted(pl.Series(range(n + 1), dtype=pl.Int64), side="left")
    return found.to_list()


def groups(frame: pl.DataFrame, columns: Sequence[str], n: int) -> TrialGroups:
    """Column lists of `frame` (sorted by trial_index) and each trial's row range."""
    return TrialGroups(frame.select(columns).to_dict(as_series=False), offsets(frame, n))


def by_trial(frame: pl.DataFrame) -> pl.DataFrame:
    return frame.sort(["trial_index", "start_ns", "span_row"], nulls_last=True)


def gather_class(
    attrs: Attributes, cls: OwnerClass, frame: pl.DataFrame, when: pl.Expr
) -> pl.DataFrame:
    """The class-wide columns of `cls` for the rows of `frame` (null where `when` is false)."""
    wide = attrs.wide[cls]
    index = frame.select(pl.when(when).then(pl.col("class_pos")).alias("i"))["i"]
    if wide.width == 0:
        return pl.DataFrame(height=frame.height)
    return wide.select(pl.all().gather(index))


# --------------------------------------------------------------------------- root objects


_AUTHORED = (
    "mcp.app.authored.mode",
    "mcp.app.authored.is_negative_test",
    "mcp.app.authored.expects_tool_call",
    "mcp.app.authored.expects_widget_render",
    "mcp.app.authored.assertion_count",
    "mcp.app.authored.has_user_ask",
    "mcp.app.authored.tool_expectation",
)
_FACTS = (
    "mcp.app.case.is_negative",
    "mcp.app.case.type",
    "mcp.app.expect.tool_calls",
    "mcp.app.expect.output_defined",
    "mcp.app.expect.output",
    "needs_model",
    "has_user_ask",
)


def _per_trial(roots: pl.DataFrame, mask: pl.Expr, columns: Sequence[str], make: Any) -> list[Any]:
    """`make(*columns)` for the trials where `mask` holds (shared per distinct value), else None."""
    out: list[Any] = [None] * roots.height
    rows = roots.with_row_index("_i").filter(mask)
    for i, obj in zip(rows["_i"].to_list(), interned(rows, columns, make), strict=True):
        out[i] = obj
    return out


def root_objects(roots: pl.DataFrame) -> RootObjects:
    """The per-trial objects read from trial roots (contract) or implied (foreign)."""
    contract = pl.col("contract")
    valid_mode = contract & pl.col("mcp.app.authored.mode").is_in(ck.AUTHORED_MODES)
    iteration: list[Any] = _per_trial(
        roots.with_columns(pl.col("mcp.app.trial.status").fill_null("")),
        contract,
        ("mcp.app.trial.status", "mcp.app.trial.error"),
        IterationInfo,
    )
    for i, status in enumerate(roots["foreign_status"].to_list()):
        if iteration[i] is None:
            iteration[i] = _foreign_iteration(status)

    def signal(phase: str) -> list[Any]:
        p = f"mcp.app.setup.{phase}."
        fields = ("outcome", "attribution", "egress_verified", "span_ids", "duration_ms")
        values = roots.select(
            pl.when(contract).then(pl.col(p + f)).alias(f) for f in fields
        ).to_dict(as_series=False)
        return [make_signal(*row) for row in zip(*values.values(), strict=True)]

    def flag(key: str) -> list[bool | None]:
        return roots.select(pl.when(contract).then(pl.col(key)))[key].to_list()

    authored: list[StageAuthoredCase | None] = _per_trial(
        roots, valid_mode, _AUTHORED, authored_as_sent
    )
    return RootObjects(
        contract=roots["contract"].to_list(),
        trace=roots["trace"].to_list(),
        root_span=roots["root_span"].to_list(),
        trial_id=roots["trial_id"].to_list(),
        run_id=roots["run_id"].to_list(),
        authored=authored,
        mode=roots["mcp.app.authored.mode"].to_list(),
        iteration=iteration,
        policy=_per_trial(
            roots, contract, ("mcp.app.policy.blocked", "mcp.app.policy.reason"), make_policy
        ),
        step_error=_per_trial(
            roots,
            contract,
            (
                "mcp.app.trial.step_error.source",
                "mcp.app.trial.step_error.code",
                "mcp.app.trial.step_error.http_status",
            ),
            make_step_error,
        ),
        tool_signals=_per_trial(
            roots,
            contract,
            ("mcp.app.tools.total_before", "mcp.app.tools.exposed"),
            make_tool_signals,
        ),
        connection=signal("connection"),
        discovery=signal("discovery"),
        trace_absent=flag("mcp.app.evidence.trace_absent"),
        lacks_channel=flag("mcp.app.evidence.trace_lacks_span_channel"),
        evaluator_errored=flag("mcp.app.evidence.evaluator_errored"),
        facts=roots.select(_FACTS).to_dict(as_series=False),
    )


_FOREIGN_ITERATIONS: dict[str, IterationInfo] = {}


def _foreign_iteration(status: str) -> IterationInfo:
    found = _FOREIGN_ITERATIONS.get(status)
    if found is None:
        found = _FOREIGN_ITERATIONS[status] = IterationInfo(status)
    return found


# --------------------------------------------------------------------------- tool calls


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
    "error_kind",
    "evidence",
    "prompt_index",
    "start_ms",
    "end_ms",
    "simple",
)


def tool_frame(st: pl.DataFrame, attrs: Attributes) -> pl.DataFrame:
    """Every span that may describe a tool call (§2.4), with what the mapping reads."""
    contract = pl.col("t_contract")
    is_role = contract & (pl.col("role") == ck.Role.TOOL_CALL)
    is_execution = (pl.col("oi") == "TOOL") | (pl.col(cv.GENAI_OPERATION) == cv.EXECUTE_TOOL)
    is_transport = pl.col(cv.MCP_METHOD) == cv.TOOLS_CALL
    tools = by_trial(st.filter(is_role | is_execution | is_transport))
    name = pl.col("name")
    suffix = pl.coalesce(
        [
            pl.when(name.str.starts_with(p)).then(name.str.strip_prefix(p).str.strip_chars())
            for p in cv.TOOL_NAME_PREFIXES
        ]
    )
    outcome = pl.when(contract).then(pl.col("mcp.app.tool.outcome"))
    tools = tools.with_columns(
        is_role.alias("is_role"),
        is_execution.fill_null(False).alias("is_execution"),
        is_transport.fill_null(False).alias("is_transport"),
        first_non_null(tools, cv.TOOL_CALL_ID).alias("call_id"),
        pl.coalesce(first_non_null(tools, cv.TOOL_NAME), pl.when(suffix != "").then(suffix)).alias(
            "tool_name"
        ),
        first_non_null(tools, cv.REQUEST_ID).alias("request_id"),
        pl.col(cv.MCP_SESSION).alias("mcp_session"),
        pl.coalesce([parse_int_code(pl.col(k)) for k in cv.ERROR_CODE]).alias("code"),
        outcome.alias("outcome"),
        pl.col(cv.ERROR_TYPE).alias("error_type"),
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
        .when(pl.col("error_type") == cv.TOOL_ERROR_TYPE)
        .then(pl.lit(ToolErrorKind.CONTENT_ERROR.value))
    )
    tools = tools.with_columns(
        errored.fill_null(False).alias("errored"),
        executed.alias("executed"),
        pl.when(errored).then(pl.lit("error")).otherwise(pl.lit("ok")).alias("status"),
        error_kind.alias("error_kind"),
        (executed & (pl.col("is_role") | ~contract)).alias("evidence"),
        _prompt_index(tools, st, attrs),
    )
    return tools.with_columns(_simple(tools))


def _simple(tools: pl.DataFrame) -> pl.Series:
    """Per row: whether its trial's tool spans are one span per call (no §2.4 join applies)."""
    call_ids = tools.filter(pl.col("call_id").is_not_null())
    shared_id = call_ids.filter(pl.len().over("trial_index", "call_id") > 1)["trial_index"]
    candidates = tools.select("trial_index", pl.col("span").alias("parent"), "is_execution")
    nested = tools.filter(pl.col("is_transport")).join(
        candidates.filter(pl.col("is_execution")).drop("is_execution"),
        on=["trial_index", "parent"],
        how="semi",
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


def report_transport_errors(tools: pl.DataFrame, roots: pl.DataFrame, log: IssueLog) -> None:
    """`W_TRANSPORT_ERROR_WITHOUT_CODE` for one-span calls (joined calls: in the assembler)."""
    bad = tools.filter(
        pl.col("simple")
        & pl.col("is_role")
        & (pl.col("outcome") == ck.TRANSPORT_ERROR)
        & pl.col("code").is_null()
    ).join(roots.select("trial_index", "trial_id", "run_id"), on="trial_index")
    for trace, span, trial_id, run_id in bad.select(
        "trace", "span", "trial_id", "run_id"
    ).iter_rows():
        log.add(
            EvidenceIssue(
                Code.W_TRANSPORT_ERROR_WITHOUT_CODE,
                "mcp.app.tool.outcome = transport_error without a numeric error code; "
                "passed through unchanged (it reads as a domain error)",
                trace_id=trace,
                span_id=span,
                trial_id=trial_id,
                run_id=run_id,
                key="mcp.app.tool.outcome",
            )
        )


def requests(st: pl.DataFrame, attrs: Attributes) -> pl.DataFrame:
    """Requested calls: `llm.output_messages.<i>.message.tool_calls.<k>.tool_call.*` (§2.4 (1))."""
    part = attrs.llm_calls
    keys = ["owner_row", "index1", "index2"]
    ids = part.filter(pl.col("field") == "id").select(*keys, pl.col("text").alias("call_id"))
    names = part.filter(pl.col("field") == "function.name").select(
        *keys, pl.col("text").alias("tool_name")
    )
    return (
        ids.join(names, on=keys, how="left")
        .rename({"owner_row": "span_row"})
        .join(st.select("span_row", "trial_index", "start_ns"), on="span_row", how="inner")
        .filter(pl.col("call_id").is_not_null())
        .sort(["trial_index", "start_ns", "span_row", "index1", "index2"], nulls_last=True)
        .unique(["trial_index", "call_id"], keep="first", maintain_order=True)
        .select("trial_index", "call_id", "tool_name")
    )


_CALL_SCHEMA = {
    "trial_index": pl.Int64,
    "call_id": pl.String,
    "tool_name": pl.String,
    "executed": pl.Boolean,
    "outcome": pl.String,
    "status": pl.String,
    "span_id": pl.String,
    "span_count": pl.Int32,
    "mcp_error_code": pl.Int64,
    "prompt_index": pl.Int64,
}


def tool_calls(
    tools: pl.DataFrame, joined_rows: list[tuple[Any, ...]], requested: pl.DataFrame
) -> pl.DataFrame:
    """One row per logical call (§2.4): one-span calls vectorised, joined calls as built by
    the assembler, then the requests that never executed; `requested` by tool-call id."""
    simple = tools.filter(pl.col("simple") & (pl.col("is_role") | ~pl.col("t_contract"))).select(
        "trial_index",
        "call_id",
        "tool_name",
        "executed",
        "outcome",
        pl.when(pl.col("executed")).then(pl.col("status")).alias("status"),
        pl.col("span").alias("span_id"),
        pl.lit(1, dtype=pl.Int32).alias("span_count"),
        pl.col("code").alias("mcp_error_code"),
        "prompt_index",
    )
    joined = pl.DataFrame(joined_rows, schema=_CALL_SCHEMA, orient="row")
    calls = pl.concat([simple.cast(_CALL_SCHEMA), joined])  # type: ignore[arg-type]
    seen = tools.select("trial_index", "call_id").filter(pl.col("call_id").is_not_null())
    never = requested.join(seen, on=["trial_index", "call_id"], how="anti").select(
        "trial_index",
        "call_id",
        "tool_name",
        pl.lit(False).alias("executed"),
        pl.lit(None, dtype=pl.String).alias("outcome"),
        pl.lit(None, dtype=pl.String).alias("status"),
        pl.lit(None, dtype=pl.String).alias("span_id"),
        pl.lit(0, dtype=pl.Int32).alias("span_count"),
        pl.lit(None, dtype=pl.Int64).alias("mcp_error_code"),
        pl.lit(None, dtype=pl.Int64).alias("prompt_index"),
    )
    calls = pl.concat([calls, never.cast(_CALL_SCHEMA)])  # type: ignore[arg-type]
    asked = requested.select("trial_index", "call_id", pl.lit(True).alias("requested"))
    return (
        calls.join(asked, on=["trial_index", "call_id"], how="left", maintain_order="left")
        .with_columns(pl.col("requested").fill_null(False))
        .sort("trial_index", maintain_order=True)
    )


# --------------------------------------------------------------------------- graders, renders


def grader_groups(st: pl.DataFrame, attrs: Attributes, n: int) -> TrialGroups:
    """Per grader row: what it feeds (prompt, predicate, judge) and its shared object."""
    part = by_trial(st.filter(pl.col("t_contract") & (pl.col("role") == ck.Role.GRADER)))
    wide = gather_class(attrs, OwnerClass.GRADER, part, pl.lit(True))
    kind, scorer = pl.col("mcp.app.grader.kind"), pl.col("mcp.app.grader.scorer_id")
    judge_name = pl.coalesce(
        pl.col("mcp.app.judge.name"),
        pl.when(scorer.str.starts_with(ck.JUDGE_SCORER_PREFIX)).then(
            scorer.str.strip_prefix(ck.JUDGE_SCORER_PREFIX)
        ),
    )
    judge = ~kind.is_in((ck.GRADER_MATCHER, ck.GRADER_PREDICATE)).fill_null(False)
    category = (
        pl.when((kind == ck.GRADER_MATCHER) & (pl.col("mcp.app.grader.scope") == ck.SCOPE_TURN))
        .then(GRADER_PROMPT)
        .when(kind == ck.GRADER_PREDICATE)
        .then(GRADER_PREDICATE)
        .when(judge & (judge_name == ck.JUDGE_GOAL))
        .then(GRADER_JUDGE)
        .when(judge & (judge_name == ck.JUDGE_ATTRIBUTION))
        .then(GRADER_ATTRIBUTION)
    )
    wide = wide.with_columns(
        part["trial_index"],
        category.alias("category"),
        pl.coalesce(
            pl.col("mcp.app.judge.status"),
            pl.col("mcp.app.grader.status"),
            pl.lit(ck.DEFAULT_JUDGE_STATUS),
        ).alias("judge_status"),
    ).with_row_index("_i")
    objects: list[Any] = [None] * wide.height
    for code, columns, make in (
        (GRADER_PROMPT, PROMPT_COLUMNS, make_prompt),
        (GRADER_PREDICATE, PREDICATE_COLUMNS, make_predicate),
        (GRADER_JUDGE, JUDGE_COLUMNS, make_judge),
        (GRADER_ATTRIBUTION, JUDGE_COLUMNS, make_attribution),
    ):
        rows = wide.filter(pl.col("category") == code)
        for i, obj in zip(rows["_i"].to_list(), interned(rows, columns, make), strict=True):
            objects[i] = obj
    return TrialGroups(
        {"category": wide["category"].to_list(), "object": objects}, offsets(wide, n)
    )


def render_groups(st: pl.DataFrame, attrs: Attributes, n: int) -> TrialGroups:
    """`mcp.app.widget.status` per `widget_render` span (§3.7 `renderObservations`)."""
    part = by_trial(st.filter(pl.col("t_contract") & (pl.col("role") == ck.Role.WIDGET_RENDER)))
    wide = gather_class(attrs, OwnerClass.WIDGET, part, pl.lit(True))
    return groups(wide.with_columns(part["trial_index"]), ["mcp.app.widget.status"], n)


def setup_groups(st: pl.DataFrame, n: int) -> TrialGroups:
    """OTel MCP `initialize` / `tools/list` spans of foreign traces (§3.8)."""
    method = pl.col(cv.MCP_METHOD)
    setup = by_trial(
        st.filter(~pl.col("t_contract") & method.is_in((cv.INITIALIZE, cv.TOOLS_LIST)))
    )
    setup = setup.with_columns(
        pl.when(method == cv.INITIALIZE)
        .then(pl.lit("connection"))
        .otherwise(pl.lit("discovery"))
        .alias("phase"),
        ((pl.col("status_code") == 2) | pl.col(cv.ERROR_TYPE).is_not_null()).alias("failed"),
    )
    return groups(setup, ["phase", "failed", "span"], n)
