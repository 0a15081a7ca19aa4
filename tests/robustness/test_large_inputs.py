"""Large inputs: a decompression bomb stops at the cap with a clear issue, in a memory that
does not grow with the cap; a document followed by a long run of whitespace imports in the
memory of the document; and one huge attribute value is stored whole, in ``large_values``,
without the import's memory growing with it beyond a small multiple.

The huge value is 8 MiB here; ``VALUECHAIN_HUGE_MB=100`` runs the same code path at 100 MiB
(the size TRACE-FORMAT's content exports reach), outside CI. Peak memory is measured in a
child process (its own ``VmHWM``, the decode running in-process: ``--workers 0``).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from bench.bombs import write_bomb
from processes import ENV

from valuechain.store import Database

HUGE_MB = int(os.environ.get("VALUECHAIN_HUGE_MB", "8"))

# Runs the import in this child and prints its peak resident memory (KiB): VmHWM, the peak
# of this process image alone. ru_maxrss keeps the parent's peak across fork and exec, so
# every child measured at least pytest's own size (407 MiB) and hid what it added.
_MEASURE = """
import sys
from valuechain.cli import main
try:
    main(sys.argv[1:], prog_name="valuechain")
except SystemExit as end:
    code = end.code
with open("/proc/self/status") as status:
    peak = next(line.split()[1] for line in status if line.startswith("VmHWM:"))
print("peak_rss_kib", peak, file=sys.stderr)
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
    assert "not stored, of rejected sources: E_TOO_LARGE 1" in " ".join(done.stdout.split())
    small = tmp_path / "small.json"
    small.write_bytes(_export("x"))
    _, baseline = _import(tmp_path / "t.duckdb", small)
    assert peak < baseline + (48 << 10), (peak, baseline)  # never the 64 MiB


@pytest.mark.parametrize("suffix", [".gz", ".zst"])
def test_a_bomb_s_memory_does_not_grow_with_the_cap(tmp_path: Path, suffix: str) -> None:
    """Zeros are neither JSON, records nor a protobuf request: the first batch says so, the
    rest is inflated to the cap unkept (issue 38.2: 10 GiB of zeros took 8.67 GB at a 4 GiB
    cap, twice the cap; 255 MB now at any cap)."""
    bomb = write_bomb(tmp_path / f"zeros{suffix}", b"\x00", 224)
    peaks = {}
    for cap_mib in (32, 192):
        cap = cap_mib << 20
        store = tmp_path / f"{cap_mib}.duckdb"
        done, peaks[cap_mib] = _import(store, "--max-decompressed-bytes", str(cap), bomb)
        assert done.returncode == 1, done.stderr
        said = " ".join(done.stderr.split())
        assert f"{bomb}: decompressed size exceeds the cap of {cap} bytes" in said, said
        assert "not stored, of rejected sources: E_TOO_LARGE 1" in " ".join(done.stdout.split())
    growth_mib = (peaks[192] - peaks[32]) / 1024
    print(
        f"zeros{suffix}: peak RSS {peaks[32] / 1024:.0f} MiB at a 32 MiB cap, "
        f"{peaks[192] / 1024:.0f} MiB at 192 MiB"
    )
    assert growth_mib < 40, peaks  # it was twice the cap's growth: 320 MiB


@pytest.mark.parametrize("pretty", [False, True], ids=["one-line", "pretty"])
def test_a_document_then_gigabytes_of_whitespace_imports_in_bounded_memory(
    tmp_path: Path, pretty: bool
) -> None:
    """A document, then a run of spaces: the run is read at the decompressor's speed and not
    held (issue 38.2: 5 GiB of it took > 596 s at 1.76 GB: a pretty-printed document's parts
    were searched again each batch, its spaces held whole)."""
    doc = json.dumps(json.loads(_export("x")), indent=2 if pretty else None).encode() + b"\n"
    peaks = {}
    for mib in (16, 176):
        source = write_bomb(tmp_path / f"doc{mib}.json.gz", b" ", mib, doc)
        done, peaks[mib] = _import(tmp_path / f"{mib}.duckdb", source)
        assert done.returncode == 0, done.stderr
        with Database(tmp_path / f"{mib}.duckdb", read_only=True) as db:
            stored = db.fetch_one("SELECT count(*), any_value(name) FROM core.spans")
            issues = db.fetch_one("SELECT count(*) FROM issues")
        assert stored == (1, "tool result") and issues == (0,)
    print(
        f"document + spaces: peak RSS {peaks[16] / 1024:.0f} MiB with 16 MiB of them, "
        f"{peaks[176] / 1024:.0f} MiB with 176 MiB"
    )
    assert (peaks[176] - peaks[16]) / 1024 < 40, peaks  # it was twice the run: 320 MiB


# Bombs whose first bytes start a JSON document, or a protobuf request (issue 38.2: each was
# read whole to the cap: 356 → 989 MiB and 323 → 794 MiB from a 32 to a 192 MiB cap)
_STARTS = {"json-start": b'{"a":', "newline": b"\n"}


@pytest.mark.parametrize("start", list(_STARTS))
def test_a_bomb_after_a_plausible_start_does_not_grow_with_the_cap(
    tmp_path: Path, start: str
) -> None:
    """A plausible start, then zeros: the decoder's issue comes from the first batch of them,
    the rest is inflated to the cap and counted, not held."""
    bomb = write_bomb(tmp_path / f"{start}.gz", b"\x00", 224, _STARTS[start])
    peaks = {}
    for cap_mib in (32, 192):
        cap = cap_mib << 20
        store = tmp_path / f"{cap_mib}.duckdb"
        done, peaks[cap_mib] = _import(store, "--max-decompressed-bytes", str(cap), bomb)
        assert done.returncode == 1, done.stderr
        said = " ".join(done.stderr.split())
        assert f"{bomb}: decompressed size exceeds the cap of {cap} bytes" in said, said
        assert "E_TOO_LARGE 1" in " ".join(done.stdout.split())
    print(
        f"{start} + zeros: peak RSS {peaks[32] / 1024:.0f} MiB at a 32 MiB cap, "
        f"{peaks[192] / 1024:.0f} MiB at 192 MiB"
    )
    assert (peaks[192] - peaks[32]) / 1024 < 40, peaks


def test_lines_after_a_long_blank_run_import_in_bounded_memory(tmp_path: Path) -> None:
    """A first NDJSON line, a run of spaces longer than a batch, then the next line: streamed,
    the run skipped (issue 38.2: read whole, as one body)."""
    line = _export("x") + b"\n"
    peaks = {}
    for mib in (16, 176):
        source = write_bomb(tmp_path / f"lines{mib}.json.gz", b" ", mib, line, b"\n" + line)
        done, peaks[mib] = _import(tmp_path / f"{mib}.duckdb", source)
        assert done.returncode == 0, done.stderr
        with Database(tmp_path / f"{mib}.duckdb", read_only=True) as db:
            stored = db.fetch_one("SELECT count(*) FROM core.spans")
            codes = db.fetch_one("SELECT list(code) FROM issues")
        assert stored == (1,) and codes == (["I_DUPLICATE_IDENTICAL"],)  # the span twice
    print(
        f"line + spaces + line: peak RSS {peaks[16] / 1024:.0f} MiB with 16 MiB of them, "
        f"{peaks[176] / 1024:.0f} MiB with 176 MiB"
    )
    assert (peaks[176] - peaks[16]) / 1024 < 40, peaks
