"""Bytes → records: compression, framing, what a non-OTLP input looks like, and salvage."""
