"""Trace and span ids: hex or base64, decided by length, never by "does it decode" (§1.4)."""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass
from typing import Any

from valuechain.contract.issues import Code

_B64 = re.compile(r"[A-Za-z0-9+/_-]+={0,2}")
_HEX_LEN = {16: 32, 8: 16}
_B64_LEN = {16: (24, 22), 8: (12, 11)}
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")


@dataclass(frozen=True, slots=True)
class IdResult:
    value: bytes | None = None
    encoding: str | None = None  # "hex" | "base64"
    code: Code | None = None
    message: str | None = None


def decode_id(raw: Any, size: int) -> IdResult:
    """Decode a ``size``-byte id; on failure the result carries the issue code and message."""
    if raw is None or raw == "":
        return IdResult(code=Code.E_MISSING_ID, message="the id is missing or empty")
    if not isinstance(raw, str):
        return IdResult(
            code=Code.E_BAD_ID_ENCODING, message=f"expected a string id, got {type(raw).__name__}"
        )
    hex_len = _HEX_LEN[size]
    value: bytes | None = None
    encoding = None
    if len(raw) == hex_len:
        try:
            value = bytes.fromhex(raw)
        except ValueError:
            value = None
        if value is not None and len(value) == size:
            encoding = "hex"
        else:
            value = None
    if value is None and len(raw) in _B64_LEN[size] and _B64.fullmatch(raw):
        text = raw.replace("-", "+").replace("_", "/")
        text += "=" * (-len(text) % 4)
        try:
            decoded = base64.b64decode(text, validate=True)
        except (binascii.Error, ValueError):
            decoded = b""
        if len(decoded) == size:
            value, encoding = decoded, "base64"
    if value is None:
        return IdResult(code=Code.E_BAD_ID_ENCODING, message=_resembles(raw, size))
    if not any(value):
        return IdResult(encoding=encoding, code=Code.E_ZERO_ID, message="an all-zero id is invalid")
    return IdResult(value=value, encoding=encoding)


def _resembles(raw: str, size: int) -> str:
    want = f"expected {_HEX_LEN[size]} hex characters or base64 of {size} bytes"
    if raw[:2] in ("0x", "0X"):
        return f"{want}, got 0x-prefixed hex (OpenTelemetry console-exporter style) {raw!r}"
    if _UUID.fullmatch(raw):
        return f"{want}, got a UUID {raw!r} (an internal id leaked into the export?)"
    if all(ch in "0123456789abcdefABCDEF" for ch in raw):
        return f"{want}, got {len(raw)} hex characters {raw!r}"
    if len(raw) < _B64_LEN[size][1]:  # "s01" (Phoenix span JSON): a name, not an encoding
        return f"{want}, got a short label {raw!r} (not an OTLP id)"
    return f"{want}, got {raw!r}"
