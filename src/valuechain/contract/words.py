"""How human output writes a count: thousands separators, and the noun's plural only when it
is not one (``1 run``, ``2 runs``, ``16,095 spans``). Light: the command line imports it."""

from __future__ import annotations


def number(n: int) -> str:
    """A count as every table and summary prints it: ``16,095``."""
    return f"{n:,}"


def plural(n: int, word: str, many: str | None = None) -> str:
    """``n`` and ``word``, or its plural (``many``, else ``word`` + s) when ``n`` is not 1."""
    return f"{number(n)} {word if n == 1 else many or word + 's'}"
