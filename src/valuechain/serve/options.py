"""What ``serve`` is started with (nothing heavy imported: the CLI reads this at start-up)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from valuechain.pipeline.imports import ImportOptions

LOOPBACK = ("127.0.0.1", "::1", "localhost")
TOKEN_ENV = "VALUECHAIN_SERVE_TOKEN"


@dataclass(frozen=True, slots=True)
class Limits:
    max_body: int = 32 << 20  # bytes of one request body as sent (413 past it)
    max_decompressed: int = 256 << 20  # bytes of one body once inflated (413 past it)
    max_backlog: int = 1 << 30  # bytes waiting in the spool: past it, 503 + Retry-After
    retry_after: int = 2  # seconds
    decoding: int = 8  # bodies read and decoded at once (the rest wait: memory stays bounded)


def import_options(workers: int = 0) -> ImportOptions:
    """The import's options with ``workers`` decode workers (the engines load only here)."""
    from valuechain.ingest.decode import DecodeOptions  # noqa: PLC0415 (light at start-up)
    from valuechain.pipeline.imports import ImportOptions  # noqa: PLC0415

    return ImportOptions(decode=DecodeOptions(workers=workers))


@dataclass(frozen=True, slots=True)
class ServeOptions:
    host: str = "127.0.0.1"
    port: int = 4318  # OTLP/HTTP's default
    token: str | None = None
    interval: float = 1.0  # seconds between import cycles (readers get the store between)
    wait: float = 600.0  # how long a cycle waits for a command holding the store
    limits: Limits = field(default_factory=Limits)
    imports: ImportOptions = field(default_factory=import_options)
