"""A campaign outside CI: SIGKILL an import (or a recompute) from outside at random moments,
then check that the store opens, its ledger agrees with its spans, and running the command
again reaches the store of an uninterrupted run.

    python tests/robustness/kill_campaign.py RUNS [SEED]

The in-process harness (``tests/pipeline/interrupt_harness.py``) kills at exact points; this
lands wherever the process happens to be, DuckDB's own commit and checkpoint included.
"""

from __future__ import annotations

import random
import signal
import sys
import tempfile
import time
from pathlib import Path

from processes import contents, spawn, valuechain

from valuechain.synth.config import SynthConfig
from valuechain.synth.writers import write_export


def main(runs: int, seed: int) -> None:
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        exports = [root / "a.jsonl", root / "b.jsonl.gz"]
        write_export(
            exports[0], SynthConfig(runs=2, cases=6, models=2, reps=3, seed=1), ndjson=True
        )
        write_export(
            exports[1],
            SynthConfig(runs=1, cases=8, models=2, reps=2, seed=2),
            ndjson=True,
            gzip=True,
        )
        reference = root / "reference.duckdb"
        started = time.monotonic()
        assert valuechain("--store", reference, "import", *exports).returncode == 0
        took = time.monotonic() - started
        expected = contents(reference)
        outcomes: dict[str, int] = {}
        for n in range(runs):
            store = root / f"s{n}.duckdb"
            child = spawn("--store", store, "import", *exports)
            time.sleep(rng.uniform(0.0, took * 1.2))
            killed = child.poll() is None
            if killed:
                child.send_signal(signal.SIGKILL)
            child.wait()
            again = valuechain("--store", store, "import", *exports)
            assert again.returncode == 0, (n, again.stderr)
            got = contents(store)
            # import numbers and row ids may differ; the content may not
            same = got == expected
            outcome = ("killed" if killed else "finished") + (" same" if same else " DIFFERENT")
            outcomes[outcome] = outcomes.get(outcome, 0) + 1
            assert same, (n, {k for k in got if got[k] != expected.get(k)})
            store.unlink()
            Path(f"{store}.wal").unlink(missing_ok=True)
        print(f"{runs} runs (uninterrupted import {took:.1f} s): {outcomes}")


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 0)
