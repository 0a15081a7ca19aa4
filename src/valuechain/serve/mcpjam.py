"""The MCPJam SDK's reporting endpoints, both generations, answered as its backend answers.

``@mcpjam/sdk`` 1.14.0 posts to ``/sdk/v1/evals/<step>``, the repository SDK (6.x) to
``/api/v1/projects/{project}/eval-ingest/<step>`` (MCPJam/inspector 6d550c0
sdk/src/report-eval-results.ts ``ingestPath``), with ``Authorization: Bearer <apiKey>``
(:583–589). The steps and the answers the SDK reads (:694–727, :1010–1075):

- ``report``: one whole run → ``{ok, suiteId, runId, status, result, summary}``;
- ``runs/start`` → ``{ok, suiteId, runId}`` (a start repeating the ``externalRunId`` of a
  finalized run is the CI-retry path: ``reused`` with its status, result and summary);
- ``runs/iterations`` (``{runId, results}``, any number) → ``{ok, inserted, skipped, total}``;
- ``runs/finalize`` (``{runId, externalRunId}``) → as ``report``.

A report is spooled as one body. A streaming run's bodies are spooled in a folder of its own
(``run-<runId>/``, in arrival order) and imported as one source once ``finalize`` arrives —
exactly the source ``import`` makes of the same bodies saved one a file (`reporter_runs`), so
a run reported live and one imported from files are the same run. A body repeated by the
SDK's retry (the same bytes) is spooled once and answered ``skipped``; a retried ``finalize``
(the same bytes, its answer lost) is answered as the first, while this serve runs.
"""

from __future__ import annotations

import contextlib
import hashlib
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from valuechain.ingest.mcpjam import SNIFF_BYTES, looks_like_sdk
from valuechain.serve.spool import SDK_REPORT, Spool, append_durably, body_sha256

RUN_PREFIX = "run-"
ANSWERS = "finalized.jsonl"  # the answer to each finalize: retries get it, also after a restart
FINALIZE = "finalize"


@dataclass(frozen=True, slots=True)
class SdkReply:
    status: int
    body: dict[str, Any]


class SdkRuns:
    """The reporting steps, over the spool (thread-safe: one lock for the run folders)."""

    def __init__(self, spool: Spool) -> None:
        self.spool = spool
        self._lock = threading.Lock()
        # runs finalized since start: runId → (sha256 of the finalize body, the answer), so a
        # retried finalize is answered as the first, also once the run is imported (its
        # folder gone); externalRunId → the answer, so a retried start is ``reused`` then too
        self._finalized: dict[str, tuple[str, SdkReply]] = {}
        self._imported: dict[str, SdkReply] = {}
        # both kept in a file of the spool, so they hold across a restart too
        self._answers = spool.folder / ANSWERS
        for line in self._answers.read_bytes().splitlines() if self._answers.exists() else []:
            with contextlib.suppress(orjson.JSONDecodeError, KeyError, TypeError):
                self._remember(orjson.loads(line))

    # ------------------------------------------------------------------ the steps
    def report(self, body: bytes) -> SdkReply:
        payload = _payload(body)
        if isinstance(payload, SdkReply):
            return payload
        if not isinstance(payload.get("results"), list) or not looks_like_sdk(body[:SNIFF_BYTES]):
            return _bad("a report is {suiteName, results: [EvalResultInput, …], …}")
        spooled = self.spool.put(body, SDK_REPORT)
        run_id = f"run_{spooled.sha256[:16]}"
        return _done(payload, run_id, payload["results"])

    def start(self, body: bytes) -> SdkReply:
        payload = _payload(body)
        if isinstance(payload, SdkReply):
            return payload
        if not isinstance(payload.get("suiteName"), str) or "results" in payload:
            return _bad("runs/start is {suiteName, externalRunId, …} without results")
        external = payload.get("externalRunId")
        with self._lock:
            if isinstance(external, str) and (known := self._run_of(external)) is not None:
                return self._again(known, payload)  # the reporter's retry of its start
            if isinstance(external, str) and (done := self._imported.get(external)) is not None:
                return SdkReply(200, done.body | {"reused": True})  # its run is in the store
            run_id = f"run_{hashlib.sha256(body).hexdigest()[:16]}"
            folder = self._folder(run_id)
            self.spool.put(body, SDK_REPORT, folder, "start")
        return SdkReply(200, {"ok": True, "suiteId": _suite_id(payload), "runId": run_id})

    def iterations(self, body: bytes) -> SdkReply:
        payload = _payload(body)
        if isinstance(payload, SdkReply):
            return payload
        results = payload.get("results")
        if not isinstance(results, list):
            return _bad("runs/iterations is {runId, results: [EvalResultInput, …]}")
        with self._lock:
            folder = self._open_run(payload.get("runId"))
            if isinstance(folder, SdkReply):
                return folder
            seen = {body_sha256(p) for p in folder.iterdir() if p.name.endswith(SDK_REPORT)}
            skipped = hashlib.sha256(body).hexdigest() in seen
            if not skipped:
                self.spool.put(body, SDK_REPORT, folder, "iterations")
            total = sum(len(r) for r in _bodies(folder, "iterations"))
        inserted = 0 if skipped else len(results)
        return SdkReply(
            200,
            {"ok": True, "inserted": inserted, "skipped": len(results) - inserted, "total": total},
        )

    def finalize(self, body: bytes) -> SdkReply:
        payload = _payload(body)
        if isinstance(payload, SdkReply):
            return payload
        run_id = payload.get("runId")
        sha256 = hashlib.sha256(body).hexdigest()
        with self._lock:
            known = self._finalized.get(run_id) if isinstance(run_id, str) else None
            if known is not None and known[0] == sha256:  # the reporter's retry: as the first
                return known[1]
            folder = self._open_run(run_id)
            if isinstance(folder, SdkReply):
                return folder
            self.spool.put(body, SDK_REPORT, folder, FINALIZE)
            start = _bodies(folder, "start")
            results = [r for batch in _bodies(folder, "iterations") for r in batch]
            reply = _done(start[0] if start else {}, str(run_id), results)
            external = start[0].get("externalRunId") if start else None
            answer = {"runId": str(run_id), "sha256": sha256, "external": external}
            answer["reply"] = reply.body
            append_durably(self._answers, orjson.dumps(answer))
            self._remember(answer)
        return reply

    def _remember(self, answer: dict[str, Any]) -> None:
        """A finalize's answer, for the reporter's retries of it and of its start."""
        reply = SdkReply(200, answer["reply"])
        self._finalized[answer["runId"]] = (answer["sha256"], reply)
        if isinstance(answer["external"], str):
            self._imported[answer["external"]] = reply

    # ------------------------------------------------------------------ the importer's side
    def finalized(self) -> list[Path]:
        """The folders of the runs whose ``finalize`` is spooled, oldest first."""
        with self._lock:
            return [f for f in self._folders() if _has(f, FINALIZE)]

    def open_runs(self) -> list[Path]:
        """The folders of the runs started and not finalized, oldest first."""
        with self._lock:
            return [f for f in self._folders() if not _has(f, FINALIZE)]

    # ------------------------------------------------------------------ internals
    def _folders(self) -> list[Path]:
        return sorted(
            (
                p
                for p in self.spool.folder.iterdir()
                if p.is_dir() and p.name.startswith(RUN_PREFIX)
            ),
            key=lambda p: min((c.name for c in p.iterdir()), default=""),
        )

    def _folder(self, run_id: str) -> Path:
        return self.spool.folder / f"{RUN_PREFIX}{run_id}"

    def _open_run(self, run_id: object) -> Path | SdkReply:
        if not isinstance(run_id, str) or not (folder := self._folder(run_id)).is_dir():
            return SdkReply(404, {"ok": False, "error": f"no open run {run_id!r}: start it first"})
        if _has(folder, FINALIZE):
            return SdkReply(409, {"ok": False, "error": f"run {run_id} is finalized already"})
        return folder

    def _run_of(self, external: str) -> Path | None:
        for folder in self._folders():
            start = _bodies(folder, "start")
            if start and start[0].get("externalRunId") == external:
                return folder
        return None

    def _again(self, folder: Path, payload: dict[str, Any]) -> SdkReply:
        run_id = folder.name.removeprefix(RUN_PREFIX)
        reply: dict[str, Any] = {"ok": True, "suiteId": _suite_id(payload), "runId": run_id}
        if _has(folder, FINALIZE):
            results = [r for batch in _bodies(folder, "iterations") for r in batch]
            reply |= _done(payload, run_id, results).body | {"reused": True}
        return SdkReply(200, reply)


def _has(folder: Path, label: str) -> bool:
    return any(f"-{label}." in p.name for p in folder.iterdir())


def _bodies(folder: Path, label: str) -> list[Any]:
    """The parsed bodies of one step (``start``: the payloads; ``iterations``: result lists)."""
    out: list[Any] = []
    for path in sorted(folder.iterdir()):
        if f"-{label}." in path.name and not path.name.endswith(".part"):
            payload = orjson.loads(path.read_bytes())
            out.append(payload.get("results", []) if label == "iterations" else payload)
    return out


def _payload(body: bytes) -> dict[str, Any] | SdkReply:
    try:
        payload = orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        return _bad(f"the body is not JSON ({exc})")
    if not isinstance(payload, dict):
        return _bad("the body is not a JSON object")
    return payload


def _bad(why: str) -> SdkReply:
    return SdkReply(400, {"ok": False, "error": why})


def _suite_id(payload: dict[str, Any]) -> str:
    name = str(payload.get("suiteName", ""))
    return f"suite_{hashlib.sha256(name.encode()).hexdigest()[:16]}"


def _done(payload: dict[str, Any], run_id: str, results: list[Any]) -> SdkReply:
    """The answer to ``report`` and ``finalize``: the SDK's own verdicts summed."""
    total = len(results)
    passed = sum(1 for r in results if isinstance(r, dict) and r.get("passed") is True)
    summary = {
        "total": total,
        "passed": passed,
        "failed": total - passed,
        "passRate": passed / total if total else 0,
    }
    body = {
        "ok": True,
        "suiteId": _suite_id(payload),
        "runId": run_id,
        "status": "completed",
        "result": "passed" if total and passed == total else "failed",
        "summary": summary,
    }
    return SdkReply(200, body)
