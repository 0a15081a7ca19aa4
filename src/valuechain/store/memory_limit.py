"""The store engine's memory bound, checked before DuckDB sees it.

DuckDB reads a size as a number and a unit — ``KB``/``MB``/``GB``/``TB`` (and their spelled-out
forms, or one letter) in powers of 1000, ``KiB``/``MiB``/``GiB``/``TiB`` in powers of 1024,
``B``/``bytes`` — case-insensitive, a space allowed between. It also reads a negative number or
``none`` as *no limit*, and below some tens of megabytes an import runs out of memory with a
traceback (measured: 16MB and 32MB fail on a 12-trial export, 48MB on a 900-trial one; 64MB
imports 2,000 trials). Neither is what a user who typed a size meant: both are refused here.
"""

from __future__ import annotations

import re

from valuechain.errors import UsageError

# DuckDB's own default is 80 % of the machine's memory, kept as a page cache that grows with the
# store; a bound keeps an import's footprint flat (DuckDB spills to disk beyond it). The page
# cache fills to the bound on any store larger than it (a derive reads every block once), and
# the derive step's two workers come on top: with 1GB a 1M-trial derive peaked at ~1.9 GB for
# the process tree, with 512MB at ~1.3 GB; imports took the same time either way.
DEFAULT_MEMORY_LIMIT = "512MB"
MEMORY_LIMIT_ENV = "VALUECHAIN_MEMORY_LIMIT"

MIN_MEMORY_LIMIT = 64 * 1000**2  # 64MB: the smallest bound an import was measured to fit
_UNITS = {
    **dict.fromkeys(("b", "byte", "bytes"), 1),
    **dict.fromkeys(("k", "kb", "kilobyte", "kilobytes"), 1000),
    **dict.fromkeys(("m", "mb", "megabyte", "megabytes"), 1000**2),
    **dict.fromkeys(("g", "gb", "gigabyte", "gigabytes"), 1000**3),
    **dict.fromkeys(("t", "tb", "terabyte", "terabytes"), 1000**4),
    "kib": 1024,
    "mib": 1024**2,
    "gib": 1024**3,
    "tib": 1024**4,
}
_SIZE = re.compile(r"\s*(\d+(?:\.\d*)?|\.\d+)\s*([A-Za-z]+)\s*")
_UNIT_HINT = "KB, MB, GB, TB (powers of 1000) or KiB, MiB, GiB, TiB (powers of 1024)"


def memory_limit_bytes(text: str, where: str) -> int:
    """The size ``text`` names, in bytes; ``UsageError`` (at ``where``) unless it is one of at
    least ``MIN_MEMORY_LIMIT``."""
    match = _SIZE.fullmatch(text)
    unit = match[2].lower() if match else ""
    if match is None or unit not in _UNITS:
        raise UsageError(
            where,
            f"memory limit {text!r} is not a size",
            f"give a number and a unit, e.g. 512MB or 2GB; units: {_UNIT_HINT}",
        )
    size = int(float(match[1]) * _UNITS[unit])
    if size < MIN_MEMORY_LIMIT:
        raise UsageError(
            where,
            f"memory limit {text!r} is below the minimum of 64MB",
            "an import runs out of memory in less; give 64MB or more (the default is 512MB)",
        )
    return size
