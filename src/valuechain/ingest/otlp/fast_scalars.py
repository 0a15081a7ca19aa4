"""The fast path's scalars (`fast.FastDecoder`): each checked as the reference decoder reads it,
and anything it would note (a malformed or zero id, a time that is not a canonical non-zero
int64 decimal, a count beyond uint32) raises `FallbackError`, so the record goes to the
reference decoder instead."""

from __future__ import annotations

from msgspec import UNSET, UnsetType

from valuechain.contract.tables import INT64_MAX
from valuechain.ingest.otlp.fast_attributes import FallbackError
from valuechain.ingest.otlp.scalars import UINT32_MAX

# a longer decimal is beyond int64 (or padded with zeros): not converted, the reference says
_INT64_DIGITS = 19


def checked_id(raw: str, size: int) -> bytes:
    """A trace or span id: ``size`` bytes of hex, not all zero."""
    if len(raw) != size * 2:
        raise FallbackError
    try:
        value = bytes.fromhex(raw)
    except ValueError:
        raise FallbackError from None
    if len(value) != size or not any(value):
        raise FallbackError
    return value


def checked_time(raw: str | UnsetType) -> int:
    """A canonical, non-zero, int64-sized decimal time (anything else is not the fast path)."""
    if raw is UNSET:
        raise FallbackError
    value = _int64(raw)
    if not value:
        raise FallbackError
    return value


def checked_count(value: int | UnsetType) -> int:
    """A uint32 (absent: 0, the proto3 default)."""
    if value is UNSET:
        return 0
    if not 0 <= value <= UINT32_MAX:
        raise FallbackError
    return value


def checked_flags(value: int | UnsetType) -> int | None:
    """Span or link flags: a uint32, None when absent."""
    if value is UNSET:
        return None
    return checked_count(value)


def checked_event_time(raw: str) -> int | None:
    """An event time: canonical decimal; 0 reads as unknown (as in the reference)."""
    return _int64(raw) or None


def _int64(raw: str) -> int:
    """A canonical decimal within int64 (beyond it: W_TIME_OUT_OF_RANGE in the reference)."""
    if not (raw.isascii() and raw.isdigit()) or len(raw) > _INT64_DIGITS:
        raise FallbackError
    value = int(raw)
    if value > INT64_MAX:
        raise FallbackError
    return value
