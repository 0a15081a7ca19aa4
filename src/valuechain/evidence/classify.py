"""Attribute keys classified once per distinct key, then gathered onto the rows (TRACE-FORMAT §6).

The key column is dictionary-encoded once; each *distinct* key is classified in Python: which
wide column it feeds (`READ_KEYS`, from `conventions`) and on which span role it is read,
which indexed family — `mcp.app.stages.<i>.*`, `llm.output_messages.<i>…tool_calls.<k>…` —
it belongs to, and which contract kind (§3.4/§3.5) its value must have. Per-key tables are
gathered back onto the rows with Arrow kernels: no string operation per row.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import IntEnum
from functools import cache

import polars as pl
import pyarrow as pa
import pyarrow.compute as pc

from valuechain.evidence import contract_keys as ck
from valuechain.evidence import conventions as cv
from valuechain.evidence.contract_keys import Kind, OwnerClass

VALUE_TYPES: tuple[str, ...] = ("string", "int", "double", "bool", "array", "kvlist", "bytes")
VT_CODE = {name: code for code, name in enumerate(VALUE_TYPES)}
VT_OTHER = len(VALUE_TYPES)  # "empty" and anything unknown
KINDS: tuple[Kind, ...] = tuple(Kind)
KIND_CODE = {kind: code for code, kind in enumerate(KINDS)}


class Special(IntEnum):
    """Key families read as long rows rather than wide columns."""

    NONE = 0
    STAGE = 1  # mcp.app.stages.<i>.<field>
    MEASUREMENT = 2  # mcp.app.measurements.<i>.<field>
    LLM_CALL = 3  # llm.output_messages.<i>.message.tool_calls.<k>.tool_call.{id,function.name},
    #              gen_ai.completion.<i>.tool_calls.<k>.{id,name} (deprecated GenAI)
    USER_SIGNAL = 4  # input.value, llm.input_messages.<i>.message.role, gen_ai.input.messages,
    #                  gen_ai.prompt.<i>.role and gen_ai.prompt (deprecated GenAI)


class ValueColumn(IntEnum):
    TEXT = 0
    INT = 1
    NUM = 2
    BOOL = 3


def value_column(kind: Kind) -> ValueColumn:
    if kind in (Kind.INT, Kind.COUNT):
        return ValueColumn.INT
    if kind is Kind.NUM:
        return ValueColumn.NUM
    if kind is Kind.BOOL:
        return ValueColumn.BOOL
    return ValueColumn.TEXT


# --------------------------------------------------------------------------- key plan


@dataclass(frozen=True, slots=True)
class ReadKey:
    """A key pivoted wide: its kind, the owner class it is read on and its flat offset."""

    key: str
    kind: Kind
    owner: OwnerClass


@dataclass(frozen=True, slots=True)
class KeyClass:
    """What one distinct key is, as gathered onto its rows."""

    read: int  # index into READ_KEYS, or -1
    special: Special
    index1: int  # stage/measurement/message index; -1 if none
    index2: int  # tool-call index within a message; -1 if none
    field: str | None  # stage/measurement/tool-call field
    contract_kind: int  # KINDS index for known contract keys, -1 otherwise
    unknown_contract: bool  # an mcp.app.* key in no contract table
    trial_key: bool  # mcp.app.trial.* (W_TRIAL_ROOT_MISSING)


READ_KEYS: tuple[ReadKey, ...] = tuple(
    ReadKey(key, kind, owner) for key, (kind, owner) in cv.READ_KEYS.items()
)
_READ_INDEX = {rk.key: i for i, rk in enumerate(READ_KEYS)}
_USER_SIGNAL_KEYS = frozenset({cv.INPUT_VALUE, cv.GENAI_INPUT_MESSAGES, cv.GENAI_PROMPT})


def is_output_content(key: str) -> bool:
    """An output content key (read as a user signal row that is never the user's ask)."""
    return key in cv.OUTPUT_CONTENT_KEYS or cv.OUTPUT_CONTENT_KEY.match(key) is not None


@cache
def classify_key(key: str) -> KeyClass:
    """Classify one distinct attribute key (cached: keys repeat across calls)."""
    read = _READ_INDEX.get(key, -1)
    contract_kind = -1
    kind = ck.CONTRACT_KEY_KINDS.get(key)
    special, index1, index2, field = Special.NONE, -1, -1, None
    if kind is None and (m := ck.STAGE_KEY.match(key)):
        kind = ck.STAGE_FIELDS.get(m.group(2))
        special, index1, field = Special.STAGE, int(m.group(1)), m.group(2)
    elif kind is None and (m := ck.MEASUREMENT_KEY.match(key)):
        kind = ck.MEASUREMENT_FIELDS.get(m.group(2))
        special, index1, field = Special.MEASUREMENT, int(m.group(1)), m.group(2)
    elif m := cv.LLM_TOOL_CALL_KEY.match(key) or cv.GENAI_COMPLETION_TOOL_CALL_KEY.match(key):
        special, index1, index2, field = (
            Special.LLM_CALL,
            int(m.group(1)),
            int(m.group(2)),
            cv.TOOL_CALL_FIELDS[m.group(3)],
        )
    elif (
        key in _USER_SIGNAL_KEYS
        or cv.LLM_INPUT_ROLE_KEY.match(key)
        or cv.GENAI_PROMPT_ROLE_KEY.match(key)
        or is_output_content(key)
    ):
        special = Special.USER_SIGNAL
    if kind is not None:
        contract_kind = KIND_CODE[kind]
    if special in (Special.STAGE, Special.MEASUREMENT) and (kind is None or read >= 0):
        special = Special.NONE  # read wide (rows 0–5), or an unknown field: unknown key
    return KeyClass(
        read=read,
        special=special,
        index1=index1,
        index2=index2,
        field=field,
        contract_kind=contract_kind,
        unknown_contract=key.startswith("mcp.app.") and kind is None,
        trial_key=key.startswith("mcp.app.trial."),
    )


def row_kind(key: str, key_class: KeyClass) -> Kind:
    if key_class.read >= 0:
        return READ_KEYS[key_class.read].kind
    if key_class.special in (Special.STAGE, Special.MEASUREMENT) and key_class.contract_kind >= 0:
        return KINDS[key_class.contract_kind]
    if key_class.special is Special.LLM_CALL:
        return Kind.TEXT
    if key_class.special is Special.USER_SIGNAL:
        return Kind.TEXT if key == cv.INPUT_VALUE or is_output_content(key) else Kind.JSON
    return Kind.STR


@cache
def accepted_table() -> pa.Array:
    """accepted[kind_code * (VT + 1) + vt_code]: whether a contract kind accepts a value type."""
    width = VT_OTHER + 1
    table = [False] * (len(KINDS) * width)
    for kind, types in ck.ACCEPTED_VALUE_TYPES.items():
        for vt in types:
            table[KIND_CODE[kind] * width + VT_CODE[vt]] = True
    return pa.array(table, type=pa.bool_())


# --------------------------------------------------------------------------- onto the rows


def encode(column: pa.ChunkedArray | pa.Array) -> tuple[pa.Array, list[str | None]]:
    """Dictionary indices (int32, one array) and the dictionary's values."""
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    encoded = column if pa.types.is_dictionary(column.type) else pc.dictionary_encode(column)
    assert isinstance(encoded, pa.DictionaryArray)
    indices = encoded.indices.cast(pa.int32())
    return indices, encoded.dictionary.cast(pa.string()).to_pylist()


def per_value(
    column: pa.ChunkedArray | pa.Array, fn: Callable[[pa.Array], pa.Array]
) -> pa.ChunkedArray | pa.Array:
    """`fn` over a column's values, row for row (nulls stay null). A dictionary column is
    computed over each chunk's few dictionary values and gathered onto the rows: decoding
    the owner and value types of a batch's ~250k rows to compare their text cost ~3 ms."""
    if not pa.types.is_dictionary(column.type):
        return fn(column)
    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    if not chunks:
        return fn(column.cast(column.type.value_type))
    return pa.chunked_array([pc.take(fn(c.dictionary), c.indices) for c in chunks])


def gather(values: Sequence[object], indices: pa.Array, dtype: pa.DataType) -> pa.Array:
    return pc.take(pa.array(values, type=dtype), indices)


def lookup(values: Sequence[object], dtype: pl.DataType, index: str = "key_index") -> pl.Expr:
    """`values[index]` per row: a per-distinct-key table gathered onto the rows."""
    return pl.lit(pl.Series(values, dtype=dtype)).gather(pl.col(index))
