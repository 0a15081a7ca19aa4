"""Random ids and tokens in the shapes the producer mints (TRACE-FORMAT §1.1, CONTRACT §7.5)."""

from __future__ import annotations

import random
import string

URLSAFE = string.ascii_uppercase + string.ascii_lowercase + string.digits + "-_"  # CONTRACT §7.5
BASE62 = string.digits + string.ascii_letters


def hex_id(rng: random.Random, nbytes: int) -> str:
    """A non-zero lower-hex id of `nbytes` bytes (§1.1: all-zero ids are invalid)."""
    while not (value := rng.getrandbits(nbytes * 8)):
        pass
    return f"{value:0{nbytes * 2}x}"


def token(rng: random.Random, n: int, alphabet: str = BASE62) -> str:
    """`n` characters drawn from `alphabet`."""
    return "".join(rng.choice(alphabet) for _ in range(n))
