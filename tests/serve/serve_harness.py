"""``valuechain serve`` run as a subprocess for the tests of tests/serve, and what they share:
the store's chains of MCPJam SDK trials, a file import to compare with, the cached install
of the published ``@mcpjam/sdk`` 1.14.0 (``npm ci`` from the committed lockfile)."""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import count
from pathlib import Path
from typing import Any

import orjson
import requests
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.trace.v1.trace_pb2 import Span

import valuechain

REPO = Path(__file__).resolve().parents[2]
PRODUCERS = REPO / "fixtures" / "producers"
MCPJAM = PRODUCERS / "mcpjam-sdk"
BANNER = "valuechain serve: listening on http://"
START_NS = 1_700_000_000_000_000_000


def env() -> dict[str, str]:
    """The environment of a ``valuechain`` subprocess: this worktree's sources first."""
    out = dict(os.environ)
    out["PYTHONPATH"] = os.pathsep.join(
        [str(REPO / "src"), *filter(None, [os.environ.get("PYTHONPATH")])]
    )
    out.pop("VALUECHAIN_SERVE_TOKEN", None)
    return out


def cli(store: Path, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """``valuechain --store STORE ARGS`` in a subprocess."""
    return subprocess.run(
        [sys.executable, "-m", "valuechain", "--store", str(store), *args],
        capture_output=True,
        text=True,
        env=env(),
        timeout=timeout,
        check=False,
    )


@dataclass
class Served:
    """One running ``valuechain serve``; its output is read by a thread as it comes."""

    proc: subprocess.Popen[str]
    store: Path
    lines: list[str] = field(default_factory=list)
    port: int = 0
    _reader: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def spool(self) -> Path:
        return self.store.with_name(self.store.name + ".spool")

    @property
    def output(self) -> str:
        return "".join(self.lines)

    def post(self, path: str, data: bytes, **headers: str) -> requests.Response:
        return requests.post(self.url + path, data=data, headers=headers, timeout=30)

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 60) -> int:
        """Send ``sig`` and wait for the exit; the exit code."""
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        code = self.proc.wait(timeout)
        if self._reader is not None:
            self._reader.join(10)
        return code


def start(store: Path, *args: str, interval: float = 0.2, timeout: float = 60) -> Served:
    """Start ``valuechain --store STORE serve --port 0 ARGS`` and wait until /health answers."""
    proc = subprocess.Popen(
        [
            *(sys.executable, "-m", "valuechain", "--store", str(store), "serve"),
            *("--port", "0", "--interval", str(interval), *args),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env() | {"COLUMNS": "400"},
    )
    served = Served(proc, store)
    listening = threading.Event()

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            served.lines.append(line)
            if BANNER in line and not listening.is_set():
                served.port = int(line.split(BANNER, 1)[1].split(" ", 1)[0].rsplit(":", 1)[1])
                listening.set()
        listening.set()  # the output ended: the process is gone

    served._reader = threading.Thread(target=read, daemon=True)
    served._reader.start()
    deadline = time.monotonic() + timeout
    listening.wait(timeout)
    if not served.port:
        served.stop(signal.SIGKILL)
        raise AssertionError(f"serve did not start:\n{served.output}")
    while time.monotonic() < deadline:
        try:
            if requests.get(served.url + "/health", timeout=5).ok:
                return served
        except requests.ConnectionError:
            time.sleep(0.05)
    served.stop(signal.SIGKILL)
    raise AssertionError(f"serve did not answer /health:\n{served.output}")


def drained(served: Served, received: int, timeout: float = 60) -> None:
    """Wait until serve acknowledged ``received`` requests or more and its spool is empty
    again (all imported)."""
    deadline = time.monotonic() + timeout
    while True:
        health = requests.get(served.url + "/health", timeout=10).json()
        if health["received"] >= received and health["backlog"] == 0:
            return
        assert time.monotonic() < deadline, f"serve did not import in {timeout} s: {health}"
        time.sleep(0.05)


# --------------------------------------------------------------------------- requests to send
def trace_id(n: int) -> str:
    return f"{n:032x}"


def _spans(trace_ids: Sequence[str], spans: int) -> Iterator[tuple[str, int]]:
    """(trace id, span number): ``spans`` spans a trace, numbered across the request."""
    numbers = count(1)
    for trace in trace_ids:
        for _ in range(spans):
            yield trace, next(numbers)


def otlp_json(*trace_ids: str, spans: int = 1, indent: bool = False) -> bytes:
    """An OTLP/JSON ExportTraceServiceRequest: ``spans`` spans in each trace (ids in hex)."""
    out = [
        {
            "traceId": trace,
            "spanId": f"{n:016x}",
            "name": f"span-{n}",
            "startTimeUnixNano": str(START_NS + n),
            "endTimeUnixNano": str(START_NS + 500 + n),
        }
        for trace, n in _spans(trace_ids, spans)
    ]
    body = {"resourceSpans": [{"scopeSpans": [{"spans": out}]}]}
    return orjson.dumps(body, option=orjson.OPT_INDENT_2 if indent else None)


def otlp_proto(*trace_ids: str, spans: int = 1) -> bytes:
    """The same request as protobuf."""
    message = ExportTraceServiceRequest()
    out = message.resource_spans.add().scope_spans.add().spans
    for trace, n in _spans(trace_ids, spans):
        out.append(
            Span(
                trace_id=bytes.fromhex(trace),
                span_id=n.to_bytes(8, "big"),
                name=f"span-{n}",
                start_time_unix_nano=START_NS + n,
                end_time_unix_nano=START_NS + 500 + n,
            )
        )
    return message.SerializeToString()


# --------------------------------------------------------------------------- what the store holds
def span_ids(store: Path) -> list[tuple[str, str]]:
    with valuechain.open(store) as s:
        return sorted(s.sql("SELECT trace_id, span_id FROM spans").rows())


def served_requests(store: Path) -> int:
    with valuechain.open(store) as s:
        return int(s.sql("SELECT count(*) FROM core.served_requests").rows()[0][0])


_SDK_CHAINS = """
SELECT t.case_title, t.provider, t.model, t.repetition, t.trial_result,
       string_agg(c.stage || '=' || c.state || ':' || coalesce(c.reason, ''), ' '
                  ORDER BY c.stage_index) AS chain
FROM trials t JOIN stage_chain c USING (trial_id)
WHERE c.source = 'derived'
GROUP BY ALL ORDER BY ALL
"""


def sdk_runs(store: Path) -> list[list[dict[str, Any]]]:
    """Each run's trials — case, variant (provider, model), repetition, the SDK's verdict and
    the derived chain — without run ids or times; runs ordered by what they hold."""
    with valuechain.open(store) as s:
        by_run: dict[str, list[dict[str, Any]]] = {}
        rows = s.sql(_SDK_CHAINS.replace("SELECT t.case_title", "SELECT t.run_id, t.case_title"))
        for row in rows.to_dicts():
            by_run.setdefault(row.pop("run_id"), []).append(row)
    return sorted(by_run.values(), key=repr)


def imported_runs(tmp: Path, *sources: Path) -> list[list[dict[str, Any]]]:
    """``sdk_runs`` of a store that ``valuechain import`` made of ``sources`` (files, or a
    reporter's folder of bodies)."""
    store = tmp / "imported.duckdb"
    done = cli(store, "import", *map(str, sources))
    assert done.returncode == 0, done.stdout + done.stderr
    return sdk_runs(store)


# --------------------------------------------------------------------------- @mcpjam/sdk 1.14.0
CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "valuechain-tests"


def mcpjam_sdk_1_14() -> Path:
    """A folder holding ``1.14.0/`` (run.mjs with its node_modules from ``npm ci``) beside
    ``harness/``, cached by the lockfile's sha256: installed once, reused after. Raises
    ``RuntimeError`` (the reason) when ``npm ci`` fails."""
    generation = MCPJAM / "1.14.0"
    lock = (generation / "package-lock.json").read_bytes()
    home = CACHE / f"mcpjam-sdk-1.14.0-{hashlib.sha256(lock).hexdigest()[:16]}"
    home.mkdir(parents=True, exist_ok=True)
    with (home / ".lock").open("w") as guard:
        fcntl.flock(guard, fcntl.LOCK_EX)  # one install at a time (pytest -n)
        shutil.copytree(MCPJAM / "harness", home / "harness", dirs_exist_ok=True)
        target = home / "1.14.0"
        target.mkdir(exist_ok=True)
        for name in ("package.json", "package-lock.json", "run.mjs"):
            shutil.copy2(generation / name, target / name)
        installed = target / ".installed"
        if not installed.exists():
            done = subprocess.run(
                ["npm", "ci", "--no-audit", "--no-fund"],
                cwd=target,
                capture_output=True,
                text=True,
                timeout=900,
                check=False,
            )
            if done.returncode != 0:
                raise RuntimeError(f"npm ci failed: {(done.stderr or done.stdout)[-2000:]}")
            installed.write_text("ok\n")
    return home


Start = Callable[..., Served]  # the ``serve`` fixture: ``serve(store, *args, interval=0.2)``
