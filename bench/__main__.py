"""Run the benchmarks: ``python -m bench [--size-mb N] [SUITE ...]``."""

from __future__ import annotations

import argparse
import sys

from bench import (
    bombs,
    coverage,
    decoders,
    derive,
    ingest,
    materialize,
    otlp_paths,
    recompute,
    report,
    scale,
    sdk_results,
    serve,
    small_files,
    startup,
    store_open,
    store_ops,
    tables,
    trend,
    verdict,
)

SUITES = {
    "ingest": ingest.run,
    "ingest-store": ingest.run_store,
    "ingest-memory": ingest.run_memory,
    "bombs": bombs.run,
    "decoders": decoders.run,
    "otlp-paths": otlp_paths.run,
    "derive": derive.run,
    "materialize": materialize.run,
    "store-open": store_open.run,
    "trend": trend.run,
    "recompute": recompute.run,
    "report": report.run,
    "store-ops": store_ops.run,
    "verdict": verdict.run,
    "coverage": coverage.run,
    "tables": tables.run,
    "scale": scale.run,
    "sdk-results": sdk_results.run,
    "small-files": small_files.run,
    "serve": serve.run,
    "startup": startup.run,
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument(
        "suites",
        nargs="*",
        metavar="SUITE",
        help=f"which suites to run: {', '.join(SUITES)} (default: all)",
    )
    parser.add_argument(
        "--size-mb",
        type=int,
        default=100,
        help="size of the synthetic NDJSON export (default 100 MB; ingest takes at "
        "least 200 MB, ingest-memory at least 2 GB)",
    )
    args = parser.parse_args(argv)
    unknown = set(args.suites) - SUITES.keys()
    if unknown:
        parser.error(f"unknown suite(s): {', '.join(sorted(unknown))}")
    for name in args.suites or SUITES:
        SUITES[name](size_mb=args.size_mb)
    return 0


if __name__ == "__main__":
    sys.exit(main())
