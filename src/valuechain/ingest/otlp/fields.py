"""Field-level reading for the reference decoder: the span-table columns, attributes, scalars.

``FieldDecoder`` holds the columns of the span tables of one source (TRACE-FORMAT §6) with the
counts of the accounting invariant (§5.1), and reads the fields below the envelopes: attribute
lists (§1.5: duplicate keys, large values, nesting depth), ids (§1.4), times, counts and enums
(§1.6). Each reader records what it finds in the source's ``IssueLog`` and never raises on bad
data. ``SpanDecoder`` (``json.py``) walks requests, resources, scopes and spans on top of it;
the fast path (``fast.py``) appends to the same columns.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import orjson
import pyarrow as pa

from valuechain.contract import tables
from valuechain.contract.issues import Code
from valuechain.contract.tables import INT64_MAX
from valuechain.ingest.otlp import anyvalue, ids, scalars
from valuechain.ingest.source.issue_log import IssueLog, Where

DEFAULT_LARGE_VALUE_THRESHOLD = 1 << 20  # TRACE-FORMAT §7 decision 5

Columns = dict[str, list[Any]]


def _columns(schema: pa.Schema) -> Columns:
    return {name: [] for name in schema.names}


class FieldDecoder:
    """The span tables of one source being decoded, and the readers of their fields."""

    def __init__(
        self, issues: IssueLog, *, large_value_threshold: int = DEFAULT_LARGE_VALUE_THRESHOLD
    ) -> None:
        self.issues = issues
        self.large_value_threshold = large_value_threshold
        self.cols: dict[str, Columns] = {
            name: _columns(schema)
            for name, schema in tables.SPAN_TABLES.items()
            if name != "issues"
        }
        self.spans_read = 0
        self.spans_quarantined = 0
        self.attributes_read = 0
        self.attributes_quarantined = 0
        self.id_encodings: set[str] = set()
        self.invalid_utf8_values = 0  # W_INVALID_UTF8 reported on attribute string values
        self.where = Where()

    def _list(self, value: Any, path: str) -> list[Any]:
        if value is None:
            return []
        if isinstance(value, list):
            return value
        self._invalid(path, value, "expected a list")
        return []

    # ----------------------------------------------------------------- attributes
    def _attributes(self, raw: Any, owner_type: str, owner_row: int, path: str) -> list[Any]:
        """Append attribute rows; return a canonical list used for content hashing."""
        canon: list[Any] = []
        seen: set[str] = set()
        for ordinal, kv in enumerate(self._list(raw, path)):
            self.attributes_read += 1
            apath = f"{path}[{ordinal}]"
            key = kv.get("key") if isinstance(kv, dict) else None
            if not isinstance(key, str):
                self.attributes_quarantined += 1
                self._quarantine(
                    kv,
                    apath,
                    [Code.W_INVALID_VALUE.value],
                    message="an attribute without a string key",
                )
                continue
            for extra in set(kv) - {"key", "value"}:
                self._unknown_field(f"{apath}.{extra}", kv[extra])
            try:
                value = anyvalue.decode(kv.get("value"))
            except anyvalue.TooDeepError:
                self._too_deep(kv, key, apath)
                continue
            self._add_attribute(key, value, owner_type, owner_row, ordinal, apath, seen, canon)
        return canon

    def _too_deep(self, raw: Any, key: str, apath: str) -> None:
        self.attributes_quarantined += 1
        self._quarantine(
            raw,
            apath,
            [Code.E_TOO_DEEP.value],
            message=f"attribute {key!r} nests deeper than {anyvalue.MAX_DEPTH} levels",
        )

    def _add_attribute(
        self,
        key: str,
        value: anyvalue.Decoded,
        owner_type: str,
        owner_row: int,
        ordinal: int,
        apath: str,
        seen: set[str],
        canon: list[Any],
    ) -> None:
        """One attribute row (issues for its notes, duplicates and size) and its canonical form."""
        c = self.cols["attributes"]
        for note in value.notes:
            if note.code is Code.W_UNKNOWN_FIELD:
                self._unknown_field(f"{apath}.value{note.subpath}", note.raw)
                continue
            if note.code is Code.W_MULTIPLE_VARIANTS:  # §1.5: the rest is kept as unknown
                self._keep_unknown(f"{apath}.value{note.subpath}", note.raw)
            elif note.code is Code.W_INVALID_UTF8:
                self.invalid_utf8_values += 1
            self._issue(
                note.code,
                f"attribute {key!r}: {note.message}",
                f"{apath}.value{note.subpath}",
                note.raw,
            )
        if key in seen:
            self._issue(
                Code.W_DUPLICATE_ATTRIBUTE_KEY,
                f"attribute {key!r} appears more than once",
                apath,
                key,
            )
        seen.add(key)
        ref = self._large_value(value, apath)
        c["owner_type"].append(owner_type)
        c["owner_row"].append(owner_row)
        c["ordinal"].append(ordinal)
        c["key"].append(key)
        c["value_type"].append(value.type)
        c["string_value"].append(None if ref is not None else value.string)
        c["int_value"].append(value.int)
        c["double_value"].append(value.double)
        c["bool_value"].append(value.bool)
        c["bytes_value"].append(None if ref is not None else value.bytes)
        c["json_value"].append(value.json)
        c["large_value_ref"].append(ref)
        canon.append([key, value.type, value.canonical()])

    def _large_value(self, value: anyvalue.Decoded, path: str) -> int | None:
        payload: str | bytes | None = value.string if value.string is not None else value.bytes
        if payload is None or len(payload) <= self.large_value_threshold:
            return None
        data = payload.encode() if isinstance(payload, str) else payload
        c = self.cols["large_values"]
        ref = len(c["large_value_ref"])
        c["large_value_ref"].append(ref)
        c["sha256"].append(hashlib.sha256(data).digest())
        c["length"].append(len(data))
        c["string_value"].append(value.string)
        c["bytes_value"].append(value.bytes)
        self._issue(Code.I_LARGE_VALUE, f"a {len(data)}-byte value moved to large_values", path)
        return ref

    # ----------------------------------------------------------------- scalars
    def _id(self, raw: Any, size: int, path: str) -> bytes | str | None:
        """Decoded id bytes, or the error code (a str) when the span must be quarantined."""
        result = ids.decode_id(raw, size)
        if result.encoding:
            self.id_encodings.add(result.encoding)
            if result.encoding == "base64":
                self._note(Code.I_BASE64_IDS, "base64 ids", path)
        if result.code is not None:
            self._issue(result.code, result.message or "", path, raw)
            return result.code.value
        return result.value

    def _parent_id(self, raw: Any, path: str) -> bytes | None:
        if raw is None or raw == "":
            return None
        result = ids.decode_id(raw, 8)
        if result.encoding:
            self.id_encodings.add(result.encoding)
            if result.encoding == "base64":
                self._note(Code.I_BASE64_IDS, "base64 ids", path)
        if result.code is Code.E_ZERO_ID:
            self._issue(Code.W_ZERO_PARENT, "all-zero parentSpanId read as a root span", path, raw)
            return None
        if result.code is not None:
            # A bad parent id does not make the span unusable: keep it as an orphan root.
            self._issue(Code.W_INVALID_VALUE, f"parentSpanId: {result.message}", path, raw)
            return None
        return result.value

    def _time(self, raw: Any, path: str) -> int | None:
        value, note = scalars.uint64(raw)
        if note is not None:
            self._issue(note.code, note.message, path, raw)
        return value or None  # 0 means unknown (§1.6); never substitute "now"

    def _timestamp(self, value: int | None, path: str) -> int | None:
        if value is None:
            return None
        if value > INT64_MAX:
            self._issue(
                Code.W_TIME_OUT_OF_RANGE,
                f"{value} ns is beyond the int64 timestamp range",
                path,
                str(value),
            )
            return None
        return value

    def _count(self, raw: Any, path: str) -> int:
        value, note = scalars.uint32(raw)
        if note is not None:
            self._issue_or_note(note, path, raw)
        return value or 0

    def _uint32(self, raw: Any, path: str) -> int | None:
        value, note = scalars.uint32(raw)
        if note is not None:
            self._issue_or_note(note, path, raw)
        return value

    def _enum(self, raw: Any, names: dict[str, int], path: str) -> tuple[int | None, str | None]:
        value, raw_name, note = scalars.enum(raw, names)
        if note is not None:
            self._issue_or_note(note, path, raw)
        return value, raw_name

    # ----------------------------------------------------------------- issue helpers
    def _issue_or_note(self, note: scalars.Note, path: str, raw: Any) -> None:
        self._issue(note.code, note.message, path, raw)

    def _issue(
        self, code: Code, message: str, path: str, value: Any = None, span_row: int | None = None
    ) -> None:
        self.issues.add(code, message, self.where, path, value, span_row)

    def _note(self, code: Code, message: str, path: str) -> None:
        self.issues.add(code, message, self.where, path)

    def _invalid(self, path: str, value: Any, message: str) -> None:
        self._issue(Code.W_INVALID_VALUE, message, path, value)

    def _unknown_field(self, path: str, raw: Any) -> None:
        self._issue(Code.W_UNKNOWN_FIELD, "unknown field ignored (OTLP rule)", path, raw)
        self._keep_unknown(path, raw)

    def _keep_unknown(self, path: str, raw: Any) -> None:
        c = self.cols["unknown_fields"]
        c["record_index"].append(self.where.record_index)
        c["json_path"].append(path)
        c["raw_json"].append(raw_json(raw))

    def _quarantine(
        self, raw: Any, path: str, codes: list[str], *, message: str | None = None
    ) -> None:
        if message is not None:
            self._issue(Code(codes[0]), message, path, raw)
        c = self.cols["quarantine"]
        c["record_index"].append(self.where.record_index)
        c["line"].append(self.where.line)
        c["byte_offset"].append(self.where.byte_offset)
        c["json_path"].append(path)
        c["raw_json"].append(raw_json(raw))
        c["codes"].append(codes)

    # ----------------------------------------------------------------- output
    def tables(self) -> dict[str, pa.Table]:
        """The accumulated rows as Arrow tables conforming to ``contract.tables``."""
        out = {}
        for name, cols in self.cols.items():
            schema = tables.SPAN_TABLES[name]
            out[name] = tables.conform(pa.table(cols, schema=schema), schema)
        return out


def raw_json(raw: Any) -> str:
    """Raw JSON text of a quarantined or unknown item."""
    try:
        return orjson.dumps(raw, default=scalars.json_literal).decode()
    except TypeError:  # NaN-bearing values parsed by the lenient path serialise fine; others
        pass  # (nesting beyond orjson's 255 levels, a quarantined too-deep attribute) below
    try:
        return json.dumps(raw, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        return repr(raw)
