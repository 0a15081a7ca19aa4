"""A fuzz campaign outside CI: the fuzz tests (``test_fuzz_decode.py``) in rounds of the
``campaign`` Hypothesis profile, one seed per round, until a deadline.

    python tests/robustness/fuzz_campaign.py LOG [--until HH:MM] [--examples N] [--first-seed S]

Each round runs every fuzz test for ``N`` examples (the import test a third of them) with
``--hypothesis-seed=S``, S = first seed, first seed + 1, …; one JSON line per round goes to
``LOG``: the seed, the examples each test tried (passing, failing, invalid, from Hypothesis's
statistics), the exit code, and for a failing round the file holding pytest's output (the
falsifying example). The last line printed totals every round. ``--until`` is a UTC time: no
round starts after it. Run it at low priority (``nice -n 19``) on a shared machine.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
TESTS = HERE / "test_fuzz_decode.py"
_TEST = re.compile(r"^(\S+::\S+):$")
# "3 passing, 0 failing, and 1 invalid test cases" (older Hypothesis: "3 passing examples, …")
_COUNTS = re.compile(
    r"(\d+) passing(?: examples?)?, (\d+) failing(?: examples?)?,(?: and)? (\d+) invalid"
)


def statistics(output: str) -> dict[str, dict[str, int]]:
    """Examples tried per test, summed over Hypothesis's phases."""
    out: dict[str, dict[str, int]] = {}
    test = None
    for line in output.splitlines():
        if found := _TEST.match(line.strip()):
            test = found.group(1).rpartition("::")[2]
            out[test] = {"passing": 0, "failing": 0, "invalid": 0}
        elif test and (counts := _COUNTS.search(line)):
            for key, value in zip(("passing", "failing", "invalid"), counts.groups(), strict=True):
                out[test][key] += int(value)
    return out


def one_round(seed: int, examples: int, log: Path) -> dict[str, object]:
    env = {**os.environ, "HYPOTHESIS_PROFILE": "campaign", "HYPOTHESIS_EXAMPLES": str(examples)}
    pytest = [sys.executable, "-m", "pytest", str(TESTS), "-q", "-p", "no:cacheprovider"]
    done = subprocess.run(
        [*pytest, f"--hypothesis-seed={seed}", "--hypothesis-show-statistics"],
        capture_output=True,
        text=True,
        env=env,
        check=False,  # a failing round is recorded, not raised
    )
    row: dict[str, object] = {"seed": seed, "examples": examples, "exit": done.returncode}
    row["tests"] = statistics(done.stdout)
    if done.returncode != 0:
        saved = log.with_name(f"{log.stem}-seed{seed}.txt")
        saved.write_text(done.stdout + done.stderr)
        row["output"] = str(saved)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("log", type=Path)
    parser.add_argument("--until", help="UTC HH:MM: no round starts later (default: one round)")
    parser.add_argument("--examples", type=int, default=500)
    parser.add_argument("--first-seed", type=int, default=1)
    args = parser.parse_args()
    now = dt.datetime.now(dt.UTC)
    deadline = now
    if args.until:
        hour, minute = map(int, args.until.split(":"))
        deadline = now.replace(hour=hour, minute=minute, second=0, microsecond=0)
    seed, tried, failing_rounds = args.first_seed, 0, 0
    while True:
        row = one_round(seed, args.examples, args.log)
        row["finished"] = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
        with args.log.open("a") as out:
            out.write(json.dumps(row) + "\n")
        tests = row["tests"]
        assert isinstance(tests, dict)
        tried += sum(sum(c.values()) for c in tests.values())
        failing_rounds += row["exit"] != 0
        seed += 1
        if dt.datetime.now(dt.UTC) >= deadline:
            break
    print(f"{seed - args.first_seed} rounds, {tried} inputs tried, {failing_rounds} failing")


if __name__ == "__main__":
    main()
