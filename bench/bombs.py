"""Decompression bombs at their real sizes (issue 38.2; the tests run the same at MiBs).

- 10 GiB of zeros, gzip and zstd, imported at a 1 GiB and at a 4 GiB cap: rejected at the cap
  (``E_TOO_LARGE``); the peak must not grow with the cap.
- the same after a JSON document's start (``{"a":``) and after a newline (0x0A, a protobuf
  request's first byte), gzip, at both caps.
- one document, then 5 GiB of spaces, gzip: at the default 4 GiB cap (the document imported,
  ``E_TOO_LARGE`` for the rest) and at a 6 GiB cap (imported whole); and the same with a
  newline and the document again after the spaces (NDJSON lines around a long blank run).

Each import is the CLI (``valuechain import``, its default workers) in a child process that
reports its own peak RSS (``VmHWM``: ``ru_maxrss`` would keep this process's peak across fork
and exec), its CPU (user + system, with its children's) and its wall time. The compressed
inputs are written a MiB at a time into a temporary folder, removed afterwards (10 GiB of
zeros is 10 MB of gzip). ``$BENCH_BOMB_GIB`` and ``$BENCH_SPACES_GIB`` change the sizes,
``$BENCH_IMPORT_ARGS`` adds import options (``--workers 0``: the decode in-process).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import zlib
from pathlib import Path

from bench.common import console, machine
from bench.ingest_cpu import load_average
from valuechain.ingest.bytes.compression import zstd_open_write
from valuechain.synth import SynthConfig, write_export

GIB, MIB = 1 << 30, 1 << 20
BOMB_GIB = int(os.environ.get("BENCH_BOMB_GIB", "10"))
SPACES_GIB = int(os.environ.get("BENCH_SPACES_GIB", "5"))

# The CLI in this child; its peak RSS, CPU and wall time on the last line of stderr.
_MEASURE = """
import resource, sys, time
from valuechain.cli import main
start = time.perf_counter()
try:
    main(sys.argv[1:], prog_name="valuechain")
except SystemExit as end:
    code = end.code
wall = time.perf_counter() - start
with open("/proc/self/status") as status:
    peak = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
usage = [resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
cpu = sum(u.ru_utime + u.ru_stime for u in usage)
print("measured", peak // 1024, f"{cpu:.1f}", f"{wall:.1f}", file=sys.stderr)
sys.exit(code)
"""


def run(size_mb: int = 0) -> None:
    del size_mb
    with tempfile.TemporaryDirectory(prefix="vc-bombs-") as folder:
        tmp = Path(folder)
        for suffix in (".gz", ".zst"):
            bomb = write_bomb(tmp / f"zeros-{BOMB_GIB}gib{suffix}", b"\x00", BOMB_GIB * 1024)
            for cap_gib in (1, 4):
                _import(tmp, bomb, f"{BOMB_GIB} GiB of zeros{suffix}", cap_gib)
            bomb.unlink()
        for name, head in (("json-start", b'{"a":'), ("newline", b"\n")):
            bomb = write_bomb(
                tmp / f"{name}-zeros-{BOMB_GIB}gib.gz", b"\x00", BOMB_GIB * 1024, head
            )
            for cap_gib in (1, 4):
                _import(tmp, bomb, f"{name} then {BOMB_GIB} GiB of zeros (.gz)", cap_gib)
            bomb.unlink()
        doc = write_export(tmp / "one.json", SynthConfig(runs=1, cases=1, models=1, reps=1)).path
        head = doc.read_bytes().strip() + b"\n"
        spaces = write_bomb(
            tmp / f"doc-{SPACES_GIB}gib-spaces.json.gz", b" ", SPACES_GIB * 1024, head
        )
        for cap_gib in (4, SPACES_GIB + 1):
            _import(tmp, spaces, f"a document then {SPACES_GIB} GiB of spaces (.gz)", cap_gib)
        spaces.unlink()
        lines = write_bomb(
            tmp / f"lines-{SPACES_GIB}gib-spaces.json.gz",
            b" ",
            SPACES_GIB * 1024,
            head,
            b"\n" + head,
        )
        for cap_gib in (4, SPACES_GIB + 1):
            what = f"a line, {SPACES_GIB} GiB of spaces, a newline and the line again (.gz)"
            _import(tmp, lines, what, cap_gib)


def write_bomb(path: Path, fill: bytes, mib: int, head: bytes = b"", tail: bytes = b"") -> Path:
    """``head``, then ``mib`` MiB of ``fill``, then ``tail``, compressed as ``path``'s suffix
    says, written a MiB at a time (never held whole); tests/robustness writes its bombs so too."""
    block = fill * MIB
    if path.suffix == ".gz":
        engine = zlib.compressobj(9, zlib.DEFLATED, 31)
        with path.open("wb") as out:
            out.write(engine.compress(head))
            for _ in range(mib):
                out.write(engine.compress(block))
            out.write(engine.compress(tail))
            out.write(engine.flush())
    else:
        with zstd_open_write(path) as out:
            out.write(head)
            for _ in range(mib):
                out.write(block)
            out.write(tail)
    return path


def _import(tmp: Path, source: Path, what: str, cap_gib: int) -> None:
    store = tmp / "bombs.duckdb"
    for stale in (store, store.with_name(store.name + ".wal")):
        stale.unlink(missing_ok=True)
    command = [sys.executable, "-c", _MEASURE, "--store", str(store), "import"]
    command += os.environ.get("BENCH_IMPORT_ARGS", "").split()  # e.g. --workers 0
    command += ["--max-decompressed-bytes", str(cap_gib * GIB), str(source)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    measured = [ln for ln in done.stderr.splitlines() if ln.startswith("measured ")]
    if not measured:
        raise RuntimeError(done.stderr)
    peak, cpu, wall = measured[-1].split()[1:]
    said = [ln for ln in done.stdout.splitlines() if ln.startswith("issues by code")]
    outcome = "exit 0" if done.returncode == 0 else f"exit {done.returncode}"
    console.print(
        f"{what}, {source.stat().st_size / MIB:.1f} MiB on disk, cap {cap_gib} GiB: "
        f"peak RSS {peak} MB, CPU {cpu} s, wall {wall} s; {outcome}"
        f"{'; ' + said[0].strip() if said else ''}; load average {load_average():.1f} "
        f"— {machine()}"
    )
