"""Large inputs: a decompression bomb stops at the cap with a clear issue, and one huge
attribute value is stored whole, in ``large_values``, without the import's memory growing
with it beyond a small multiple.

The huge value is 8 MiB here; ``VALUECHAIN_HUGE_MB=100`` runs the same code path at 100 MiB
(the size TRACE-FORMAT's content exports reach), outside CI. Peak memory is measured in a
child process (its own ``ru_maxrss``, the decode running in-process: ``--workers 0``).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

from processes import ENV

from valuechain.store import Database

HUGE_MB = int(os.environ.get("VALUECHAIN_HUGE_MB", "8"))

# Runs the import in this child and prints its peak resident memory (KiB, Linux ru_maxrss).
_MEASURE = """
import resource, sys
from valuechain.cli import main
try:
    main(sys.argv[1:], prog_name="valuechain")
except SystemExit as end:
    code = end.code
print("peak_rss_kib", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)
sys.exit(code)
"""


def _import(store: Path, *args: str | Path) -> tuple[subprocess.CompletedProcess[str], int]:
    done = subprocess.run(
        [sys.executable, "-c", _MEASURE, "--store", str(store), "import", "--workers", "0"]
        + [str(a) for a in args],
        capture_output=True,
        text=True,
        env=ENV,
        timeout=1800,
        check=False,
    )
    peak = [ln for ln in done.stderr.splitlines() if ln.startswith("peak_rss_kib ")]
    assert peak, done.stderr
    return done, int(peak[-1].split()[1])


def _export(value: str) -> bytes:
    span = {
        "traceId": "5b8efff798038103d269b633813fc60c",
        "spanId": "0000000000000001",
        "name": "tool result",
        "startTimeUnixNano": "1700000000000000000",
        "endTimeUnixNano": "1700000000000001000",
        "attributes": [{"key": "output.value", "value": {"stringValue": value}}],
    }
    request = {"resourceSpans": [{"resource": {}, "scopeSpans": [{"scope": {}, "spans": [span]}]}]}
    return json.dumps(request).encode()


def test_a_huge_attribute_is_stored_whole_in_bounded_memory(tmp_path: Path) -> None:
    size = HUGE_MB << 20
    value = "".join(chr(0x61 + i % 26) for i in range(26)) * (size // 26 + 1)
    value = value[:size]
    source = tmp_path / "huge.json"
    source.write_bytes(_export(value))
    baseline_store = tmp_path / "baseline.duckdb"
    small = tmp_path / "small.json"
    small.write_bytes(_export("x"))
    _, baseline = _import(baseline_store, small)
    done, peak = _import(tmp_path / "s.duckdb", source)
    assert done.returncode == 0, done.stderr
    with Database(tmp_path / "s.duckdb", read_only=True) as db:
        stored = db.fetch_one(
            "SELECT octet_length(encode(string_value)), lower(hex(sha256)) FROM core.large_values"
        )
        codes = db.fetch_one("SELECT list(code) FROM issues")
    assert stored == (size, hashlib.sha256(value.encode()).hexdigest())  # whole, not a prefix
    assert codes is not None and "I_LARGE_VALUE" in codes[0]
    growth_mb = (peak - baseline) / 1024
    print(
        f"huge attribute {HUGE_MB} MiB: peak RSS {peak / 1024:.0f} MiB, "
        f"{baseline / 1024:.0f} MiB for a one-byte value, "
        f"growth {growth_mb / HUGE_MB:.1f}× the value"
    )
    assert growth_mb < 12 * HUGE_MB, (peak, baseline)  # a few copies in flight, never unbounded


def test_a_decompression_bomb_stops_at_the_cap(tmp_path: Path) -> None:
    """64 MiB of JSON in 64 KiB of gzip, against a 1 MiB cap: rejected at the cap, reading
    no further — the memory stays that of a small import."""
    padding = " " * (64 << 20)
    bomb = tmp_path / "bomb.json.gz"
    bomb.write_bytes(gzip.compress(_export("x")[:-3] + padding.encode() + b"]}]}", mtime=0))
    assert bomb.stat().st_size < 1 << 20
    done, peak = _import(tmp_path / "s.duckdb", "--max-decompressed-bytes", str(1 << 20), bomb)
    assert done.returncode == 1
    said = " ".join(done.stderr.split())
    assert "decompressed size exceeds the cap of 1048576 bytes" in said, said
    assert "raise the cap with --max-decompressed-bytes if the file is trusted" in said
    assert "issues by code: E_TOO_LARGE 1" in " ".join(done.stdout.split())
    small = tmp_path / "small.json"
    small.write_bytes(_export("x"))
    _, baseline = _import(tmp_path / "t.duckdb", small)
    assert peak < baseline + (48 << 10), (peak, baseline)  # never the 64 MiB
