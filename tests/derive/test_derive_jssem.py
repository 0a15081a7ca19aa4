"""JavaScript semantics the reference relies on (CONTRACT §0.2, §9 Q8/Q9), on astral strings."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from valuechain.derive.jssem import (
    is_js_number,
    js_json,
    js_number_str,
    js_trim,
    utf16_len,
    utf16_slice,
    utf16_sort_key,
)

GRIN = "😀"  # U+1F600: two UTF-16 code units, D83D DE00


def test_utf16_length_counts_code_units() -> None:
    assert utf16_len("") == 0
    assert utf16_len("abc") == 3
    assert utf16_len("é") == 1
    assert utf16_len(GRIN) == 2
    assert utf16_len("a" + GRIN * 3 + "\U0010ffff") == 9


def test_utf16_slice_cuts_code_units_and_may_split_a_pair() -> None:
    text = "a" + GRIN + "b"
    assert utf16_slice(text, 0, 3) == "a" + GRIN
    assert utf16_slice(text, 0, 2) == "a\ud83d"  # a lone high surrogate, as in JS
    assert utf16_slice(text, 2) == "\ude00b"
    assert utf16_slice(text, -1) == "b"
    assert utf16_slice(text, 3, 1) == ""
    assert utf16_slice("abc", 1, 99) == "bc"


@given(
    st.text(st.sampled_from(["a", "é", GRIN, "\U0001f9ea", "\u3000"]), max_size=40),
    st.integers(0, 90),
)
def test_utf16_slice_prefixes_round_trip(text: str, cut: int) -> None:
    head, tail = utf16_slice(text, 0, cut), utf16_slice(text, cut)
    assert utf16_len(head) == min(cut, utf16_len(text))
    joined = (head + tail).encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
    assert joined == text


def test_sort_key_is_code_unit_order() -> None:
    # Code points put U+FFFF before U+1F600; UTF-16 code units put the surrogate D83D first.
    assert GRIN > "\uffff"
    assert sorted(["\uffff", GRIN, "z"], key=utf16_sort_key) == ["z", GRIN, "\uffff"]


@pytest.mark.parametrize(
    ("text", "trimmed"),
    [
        ("  a  ", "a"),
        ("\ufeff\u00a0a\u3000\u2028", "a"),  # JS strips BOM and NBSP and LS
        ("\x1ca\x85", "\x1ca\x85"),  # ...but not U+001C or NEL, which Python's strip() does
        ("\u200b", "\u200b"),  # zero-width space is not whitespace
        (GRIN + " ", GRIN),
    ],
)
def test_js_trim(text: str, trimmed: str) -> None:
    assert js_trim(text) == trimmed


@pytest.mark.parametrize(
    ("value", "expected"),
    [(1, True), (1.5, True), (True, False), (False, False), (None, False), ("1", False)],
)
def test_is_js_number_excludes_bool(value: object, expected: bool) -> None:
    assert is_js_number(value) is expected


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1.0, "1"),
        (-0.0, "0"),
        (0.1, "0.1"),
        (123.456, "123.456"),
        (1e16, "10000000000000000"),
        (1e21, "1e+21"),
        (1.5e-7, "1.5e-7"),
        (1e-6, "0.000001"),
        (0.001, "0.001"),
        (-2.5e25, "-2.5e+25"),
        (2**53, "9007199254740992"),
        (2**60, "1152921504606847000"),  # beyond 2^53 JS holds a double
        (5e-324, "5e-324"),
    ],
)
def test_number_formatting(value: float, text: str) -> None:
    assert js_number_str(value) == text


def test_js_json() -> None:
    assert js_json({"b": [1.0, None, True], "a": "é" + GRIN}) == '{"b":[1,null,true],"a":"é😀"}'
    assert js_json({"b": 1, "a": 2}, sort_keys=True) == '{"a":2,"b":1}'
    assert js_json({"b": 1, "10": 2, "2": 3}) == '{"2":3,"10":2,"b":1}'  # index keys first
    assert js_json([math.nan, math.inf]) == "[null,null]"
    assert js_json('\n\x1f"\\') == json.dumps('\n\x1f"\\')
    assert js_json("a\ud83d") == '"a\\ud83d"'  # lone surrogates are escaped
    assert js_json("\ud83d\ude00") == f'"{GRIN}"'  # a surrogate pair is one character
    # UTF-16 code-unit key order, not code-point order
    assert js_json({"\uffff": 1, GRIN: 2}, sort_keys=True) == f'{{"{GRIN}":2,"\uffff":1}}'
    with pytest.raises(TypeError):
        js_json({1: 2})
    with pytest.raises(TypeError):
        js_json({"a": {1, 2}})
