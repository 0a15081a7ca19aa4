"""``python -m bench scale``: the Ray Data path against the single-process path on one node.

The same synthetic export set (``BENCH_SCALE_MB``, default 1024 MB of NDJSON, every trace's
spans dealt over ``BENCH_SCALE_FILES`` files, default 16) is generated once into a cache
folder outside the repository (``BENCH_SCALE_CACHE``, default ``~/.cache/valuechain-bench``).
Then, each as a whole process timed with the operating system's accounting of it and every
process it waited for (user + sys, children included):

- ``single``: ``valuechain import`` of the set into a fresh store in one process (no decode
  or derive workers) — import, derive and materialize, the floor this path is measured by;
- ``ray``: ``valuechain scale`` of the set with a local Ray of two workers — decode, shuffle
  by run, derive, materialize and write Parquet.

Both print MB/s and trials/s; the ratio ray ÷ single is Ray's overhead (or gain) on one node.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from bench.common import console, machine
from valuechain.synth.config import SynthConfig
from valuechain.synth.split import write_split_export

CACHE = Path(os.environ.get("BENCH_SCALE_CACHE", Path.home() / ".cache" / "valuechain-bench"))
PROBE = SynthConfig(runs=1, cases=4, models=2, reps=2, seed=11)


@dataclass(frozen=True, slots=True)
class Run:
    name: str
    wall: float
    cpu: float
    megabytes: float
    trials: int

    def row(self, base: Run) -> str:
        line = (
            f"{self.name:<7} wall {self.wall:8.1f} s  cpu {self.cpu:8.1f} s  "
            f"{self.megabytes / self.wall:6.2f} MB/s  {self.trials / self.wall:8.1f} trials/s  "
            f"÷ single {base.wall / self.wall:5.2f} (wall)"
        )
        if self.name == "ray":  # Ray's workers are the raylet's children, not ours
            return f"{line}  (cpu: the driver's only, Ray's workers are not counted)"
        return f"{line}  {base.cpu / self.cpu:5.2f} (cpu)"


def export_set(megabytes: int, files: int) -> tuple[list[Path], int]:
    """The cached split export of about ``megabytes``, and its trial count."""
    folder = CACHE / f"scale-{megabytes}mb-{files}files"
    done = folder / "trials.txt"
    if not done.exists():
        shutil.rmtree(folder, ignore_errors=True)
        with tempfile.TemporaryDirectory() as tmp:
            probe = write_split_export(tmp, PROBE, 1)
            per_trial = probe[0].stat().st_size / (PROBE.cases * PROBE.models * PROBE.reps)
        trials_wanted = int(megabytes * 1e6 / per_trial)
        runs = max(1, trials_wanted // 400)  # runs of 400 trials: 25 cases x 4 models x 4 reps
        config = SynthConfig(runs=runs, cases=25, models=4, reps=4, seed=11)
        write_split_export(folder, config, files)
        done.write_text(str(runs * 400))
    paths = sorted(folder.glob("*.otlp.jsonl"))
    return paths, int(done.read_text())


def timed(name: str, argv: list[str], megabytes: float, trials: int, env: dict[str, str]) -> Run:
    """Wall and CPU time (user + sys of the process and every process it waited for)."""
    with tempfile.TemporaryFile() as log:
        start = time.perf_counter()
        process = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=log)
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = status
        wall = time.perf_counter() - start
        if status != 0:
            log.seek(0)
            raise RuntimeError(f"{name} failed: {log.read().decode()[-2000:]}")
    return Run(name, wall, usage.ru_utime + usage.ru_stime, megabytes, trials)


def run(size_mb: int) -> list[Run]:
    """Generate (once) and measure; ``size_mb`` is ignored: ``BENCH_SCALE_MB`` sizes it."""
    del size_mb
    megabytes = int(os.environ.get("BENCH_SCALE_MB", "1024"))
    files = int(os.environ.get("BENCH_SCALE_FILES", "16"))
    paths, trials = export_set(megabytes, files)
    size = sum(p.stat().st_size for p in paths) / 1e6
    cli = [str(Path(sys.executable).with_name("valuechain"))]
    env = {**os.environ, "VALUECHAIN_DERIVE_WORKERS": "0"}
    with tempfile.TemporaryDirectory(prefix="valuechain-bench-") as tmp:
        store = Path(tmp) / "single.duckdb"
        single = timed(
            "single",
            [*cli, "--store", str(store), "import", "--workers", "0", *map(str, paths)],
            size,
            trials,
            env,
        )
        ray = timed(
            "ray",
            [
                *cli,
                "scale",
                *map(str, paths),
                "--out",
                str(Path(tmp) / "scaled"),
                "--num-cpus",
                "2",
            ],
            size,
            trials,
            dict(os.environ),
        )
    load = os.getloadavg()
    console.print(
        f"scale: {size:,.0f} MB in {len(paths)} files, {trials:,} trials — {machine()}, "
        f"load average {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f}"
    )
    for measured in (single, ray):
        console.print(measured.row(single), highlight=False)
    return [single, ray]
