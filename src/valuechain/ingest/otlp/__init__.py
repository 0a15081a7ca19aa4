"""OTLP decoding: OTLP/JSON (the reference decoder and its fast path), protobuf, AnyValue, ids."""
