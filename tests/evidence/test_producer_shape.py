"""The producer's persisted chains are checked once per shape
(`evidence.persisted.verify_persisted`): trials whose chains differ only in the strings of
plain evidence lists share one verdict. The blanking must keep a text valid JSON exactly when
it was, and the §2.1 check's verdict."""

from __future__ import annotations

import json

import orjson
import polars as pl
from hypothesis import given
from hypothesis import strategies as st

from valuechain.contract.measurements import check_persisted
from valuechain.evidence.persisted import _blank_strings

_STAGES = ("connection", "discovery", "selection", "call", "response", "userValue")
_JSONISH = st.text(alphabet='[]",: \\\t\n\x00\x01ab1u{}', max_size=12)
_LISTS = st.lists(st.one_of(st.text(max_size=5), st.integers(), st.booleans(), st.none()))


def _blanked(texts: list[str]) -> list[str]:
    frame = pl.DataFrame({"t": texts}, schema={"t": pl.String})
    return frame.select(_blank_strings(pl.col("t"))).to_series().to_list()


def _valid(text: str) -> bool:
    try:
        orjson.loads(text)
    except orjson.JSONDecodeError:
        return False
    return True


def _verdict(span_ids: str) -> tuple[bool, list[str] | None]:
    evidence = f'{{"spanIds":{span_ids}}}'
    rows = [
        (stage, "passed", None, evidence if i == 1 else None) for i, stage in enumerate(_STAGES)
    ]
    return check_persisted(rows, (1, None, None), None, None)


@given(st.lists(st.one_of(_JSONISH, _LISTS.map(json.dumps)), min_size=1, max_size=8))
def test_blanking_keeps_json_validity_and_the_verdict(texts: list[str]) -> None:
    for text, blank in zip(texts, _blanked(texts), strict=True):
        assert _valid(blank) == _valid(text), (text, blank)
        assert _verdict(blank) == _verdict(text), (text, blank)


def test_plain_string_lists_share_a_shape_and_others_keep_their_text() -> None:
    texts = ['["7b840d1e80c70d5f"]', '["0a1b2c3d4e5f6071"]', '["a", 1]', '["a\\"b"]', "[1]"]
    assert _blanked(texts) == ['[""]', '[""]', '["a", 1]', '["a\\"b"]', "[1]"]


_REACHES = st.sampled_from(["reached", "notReached", "notApplicable", "unknown", "sideways"])


@given(
    st.lists(st.tuples(_REACHES, st.booleans()), min_size=6, max_size=6),
    st.floats(allow_nan=True, allow_infinity=True),
)
def test_a_latency_is_read_for_its_presence_only(
    rows: list[tuple[str, bool]], latency: float
) -> None:
    """The shape keeps a latency's presence, not its value: the verdict must not read it."""
    chain = [(stage, "passed", None, None) for stage in _STAGES]

    def verdict(value: float) -> tuple[bool, list[str] | None]:
        sent = [(i, reach, value if timed else None) for i, (reach, timed) in enumerate(rows)]
        return check_persisted(chain, (1, None, None), sent, 1)

    assert verdict(latency) == verdict(1.0)
