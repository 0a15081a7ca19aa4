"""Run, case and parity identities of SDK results (docs/spec/mcpjam-sdk.md §3).

Every identity is a hash of what the payload says, never a constant; one the payload cannot
supply (a run group without CI metadata) stays absent, and CONTRACT §5.11 blocks on it.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping
from typing import Any

import orjson

_OPAQUE_ID = re.compile(r"^[A-Za-z0-9_-]{1,128}$")  # CONTRACT §6.3, TRACE-FORMAT §3.1
_ITER_SUFFIX = re.compile(r"^(?P<title>.+)-iter-(?P<n>[1-9][0-9]*)$")

# `MATCH_OPTIONS_DEFAULTS` of sdk/src/matchers.ts: what an unset option means to the matcher
MATCH_DEFAULTS: Mapping[str, Any] = {
    "argumentMatching": "partial",
    "toolCallOrder": "ignore",
    "maxExtraToolCalls": None,
}


def canonical(value: Any) -> bytes:
    """Key-sorted compact JSON: one byte string per meaning."""
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)


def short_hash(*parts: Any, n: int = 16) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(canonical(part))
        digest.update(b"\x00")
    return digest.hexdigest()[:n]


def opaque(value: str, prefix: str) -> str:
    """``value`` when it is already an opaque id, else ``prefix`` + a hash of it."""
    return value if _OPAQUE_ID.match(value) else prefix + short_hash(value)


def case_title(result: Mapping[str, Any]) -> str:
    """The case's title: ``caseTitle``, without the ``-iter-N`` suffix that
    ``runToEvalResults`` appends (eval-result-mapping.ts) when ``metadata.iterationNumber``
    says that N is the iteration — the only place the SDK puts the iteration in a title."""
    title = str(result["caseTitle"]).strip()
    match = _ITER_SUFFIX.match(title)
    metadata = result.get("metadata")
    number = metadata.get("iterationNumber") if isinstance(metadata, dict) else None
    if match and isinstance(number, int) and int(match["n"]) == number:
        return match["title"]
    return title


def case_key(result: Mapping[str, Any]) -> str:
    """``caseId``, else ``externalCaseId``, else the title: the case a result repeats."""
    for key in ("caseId", "externalCaseId"):
        value = result.get(key)
        if isinstance(value, str) and value.strip():
            return opaque(value.strip(), "c_")
    return "t_" + short_hash(case_title(result))


def case_content(result: Mapping[str, Any]) -> dict[str, Any]:
    """What the case asks and asserts (not what a trial did): its content hash's input."""
    return {
        "title": case_title(result),
        "query": result.get("query"),
        "expectedToolCalls": result.get("expectedToolCalls"),
        "isNegativeTest": result.get("isNegativeTest"),
        "expectedOutput": result.get("expectedOutput"),
        "advancedConfig": result.get("advancedConfig"),
        "matchOptions": result.get("matchOptions"),
    }


def case_set_fingerprint(cases: Iterable[tuple[str, str]]) -> str:
    """Of the run's (case key, content hash) pairs, order aside."""
    return "csf_" + short_hash(sorted(set(cases)))


def config_revision(settings: Mapping[str, Any], results: list[dict[str, Any]]) -> str:
    """``evaluationConfigHash`` when the run sends one; else a hash of the evaluation config
    (``metadata.evaluationConfig``), each case's resolved match options, the server names and
    what decides a result (``passCriteria``, ``failOnToolError``)."""
    given = settings.get("evaluationConfigHash")
    if isinstance(given, str) and given.strip():
        return given.strip()
    configs = []
    options = []
    for result in results:
        metadata = result.get("metadata")
        if isinstance(metadata, dict) and metadata.get("evaluationConfig") is not None:
            configs.append(metadata["evaluationConfig"])
        options.append(resolved_match_options(result.get("matchOptions")))
    servers = settings.get("serverNames")
    return "cr_" + short_hash(
        sorted({canonical(c).decode() for c in configs}),
        sorted({canonical(o).decode() for o in options}),
        sorted(servers) if isinstance(servers, list) else None,
        settings.get("passCriteria"),
        settings.get("failOnToolError"),
    )


def run_group(settings: Mapping[str, Any]) -> str | None:
    """A series of runs: the CI pipeline (``ci.pipelineId``, with ``ci.provider`` and
    ``ci.branch`` when given) that reports this suite; None without one."""
    ci = settings.get("ci")
    if not isinstance(ci, dict):
        return None
    pipeline = ci.get("pipelineId")
    if not isinstance(pipeline, str) or not pipeline.strip():
        return None
    return "rg_" + short_hash(
        settings.get("suiteName"), ci.get("provider"), pipeline, ci.get("branch")
    )


def resolved_match_options(options: Any) -> dict[str, Any]:
    """The matcher's effective options: the result's ``matchOptions`` over the SDK defaults
    (legacy ``allowExtraToolCalls``: true ⇒ null, false ⇒ 0; an explicit max wins)."""
    out = dict(MATCH_DEFAULTS)
    if not isinstance(options, dict):
        return out
    for key in ("argumentMatching", "toolCallOrder"):
        if isinstance(options.get(key), str):
            out[key] = options[key]
    if "maxExtraToolCalls" in options:
        out["maxExtraToolCalls"] = options["maxExtraToolCalls"]
    elif isinstance(options.get("allowExtraToolCalls"), bool):
        out["maxExtraToolCalls"] = None if options["allowExtraToolCalls"] else 0
    return out
