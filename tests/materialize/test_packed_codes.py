"""Guards on the codes the analytics SQL packs into bits: a vocabulary outgrowing them fails.

The funnel tallies pack each trial's chain into BIGINTs (``sql/analytics/030_chain_sigs.sql``,
``060_records.sql``): one byte per stage index, a state or class code above the reason's
1-based position in ``StageReason`` (macros ``sql/views/104``–``107``), and one bit per stage
index for measurements. A new reason, state or stage that no longer fits would silently mix
into its neighbour's bits. The widths are read from the SQL itself, so widening the SQL moves
the guard too; a pattern that is no longer found fails, naming the file to look at.
"""

from __future__ import annotations

import re
from pathlib import Path

from valuechain.contract.vocab import StageReason, StageState
from valuechain.contract.vocab_rules import STAGES

CHAIN_CODE = "views/104_macro_chain_stage_code.sql"
STAGE_CLASS = "views/106_macro_stage_class.sql"
STAGE_BYTE = "views/107_macro_stage_byte.sql"
CHAIN_SIGS = "analytics/030_chain_sigs.sql"
RECORDS = "analytics/060_records.sql"
UNPACK = "analytics/100_slice_stage_reasons.sql"
BIGINT_BITS = 63  # the packed columns are signed BIGINTs: bit 63 would make them negative
SQL = Path(__file__).resolve().parents[2] / "sql"


def code(name: str) -> str:
    """The SQL of ``sql/<name>`` without its comments."""
    text = (SQL / name).read_text(encoding="utf-8")
    return "\n".join(line.split("--", 1)[0] for line in text.splitlines())


def number(name: str, pattern: str) -> int:
    """The one integer ``pattern`` captures in ``sql/<name>``."""
    found = {int(m) for m in re.findall(pattern, code(name))}
    assert len(found) == 1, f"sql/{name}: expected one match of {pattern!r}, got {found or 'none'}"
    return found.pop()


def reason_bits() -> int:
    """Bits for a reason position: the state code sits this far up (macro 104)."""
    return number(CHAIN_CODE, r"END << (\d+)\) \| coalesce\(reason_position, 0\)")


def byte_bits() -> int:
    """Bits per stage index in the packed chain (030: `<< (8 * c.stage_index)`)."""
    return number(CHAIN_SIGS, r"<< \((\d+) \* c\.stage_index\)")


def test_the_widths_agree_across_the_files() -> None:
    r, b = reason_bits(), byte_bits()
    assert number(STAGE_BYTE, r"\) << (\d+)\)") == r, f"sql/{STAGE_BYTE}: class shift ≠ {r}"
    assert number(STAGE_BYTE, r"& (\d+)\)\n") == 2**r - 1, f"sql/{STAGE_BYTE}: reason mask"
    assert number(STAGE_BYTE, r"& (\d+) = 0") == 2**b - 1, f"sql/{STAGE_BYTE}: byte mask"
    assert number(STAGE_BYTE, r"\((\d+) \* i\)") == b, f"sql/{STAGE_BYTE}: byte width"
    assert number(STAGE_CLASS, r"CASE b >> (\d+)") == r, f"sql/{STAGE_CLASS}: state shift ≠ {r}"
    assert number(UNPACK, r"& (\d+) AS TINYINT\)\s+AS reason") == 2**r - 1, f"sql/{UNPACK}"
    assert number(UNPACK, r"\+ (\d+)\)\) & \d+ AS TINYINT\) AS class") == r, f"sql/{UNPACK}"
    assert number(UNPACK, r"& (\d+) AS TINYINT\) AS class") == 2 ** (b - r) - 1, f"sql/{UNPACK}"


def test_stage_reasons_fit_their_bits() -> None:
    r = reason_bits()
    # position 0 means "no reason", so 2**r - 1 positions are left
    assert len(StageReason) <= 2**r - 1, (
        f"StageReason has {len(StageReason)} members but a reason position has {r} bits "
        f"(at most {2**r - 1}): widen sql/{CHAIN_CODE}, sql/{STAGE_BYTE}, sql/{STAGE_CLASS} "
        f"and sql/{UNPACK}, and the byte per stage in sql/{CHAIN_SIGS} and sql/{RECORDS}"
    )


def test_stage_states_fit_their_bits() -> None:
    sql = code(CHAIN_CODE)
    named = dict(re.findall(r"WHEN '(\w+)' THEN (\d+)", sql))
    other = int(re.findall(r"ELSE (\d+)", sql)[0])
    assert set(named) == {s.value for s in StageState}, (
        f"sql/{CHAIN_CODE} codes {sorted(named)}, StageState has "
        f"{[s.value for s in StageState]}: give every state its code (and a class in "
        f"sql/{STAGE_CLASS})"
    )
    width = byte_bits() - reason_bits()
    # code 0 marks "no row at this index"; every state and the "any other state" code follow
    assert len(StageState) + 1 <= 2**width - 1, (
        f"StageState has {len(StageState)} members (+1 for any other state) but a state code "
        f"has {width} bits: widen the byte per stage (sql/{CHAIN_CODE}, sql/{CHAIN_SIGS})"
    )
    assert max(map(int, named.values())) < other <= 2**width - 1, f"sql/{CHAIN_CODE}"


def test_stage_classes_fit_their_bits() -> None:
    classes = {int(c) for c in re.findall(r"THEN (\d+)", code(STAGE_CLASS))}
    width = byte_bits() - reason_bits()
    assert max(classes) <= 2**width - 1, (
        f"sql/{STAGE_CLASS} has class {max(classes)} but a class has {width} bits above the "
        f"reason in sql/{STAGE_BYTE}: widen the byte per stage"
    )


def test_stages_fit_the_packed_bigints() -> None:
    n, b = len(STAGES), byte_bits()
    last = number(CHAIN_SIGS, r"c\.stage_index BETWEEN 0 AND (\d+)\n")
    reach_at = number(CHAIN_SIGS, r"m\.reach\) AS BIGINT\)\s+<< \((\d+) \+ m\.stage_index\)")
    measured_at = number(CHAIN_SIGS, r"CAST\(1 AS BIGINT\) << \((\d+) \+ m\.stage_index\)")
    assert last + 1 == n, (
        f"sql/{CHAIN_SIGS} packs stage indexes 0–{last}, the contract has {n} stages: "
        f"its masks, sql/{RECORDS} and sql/{UNPACK} name the count too"
    )
    assert n * b <= reach_at, f"sql/{CHAIN_SIGS}: {n} stage bytes overlap the reach bits"
    assert reach_at + n <= BIGINT_BITS, f"sql/{CHAIN_SIGS}: reach bits beyond a BIGINT"
    assert n <= measured_at and measured_at + n <= BIGINT_BITS, f"sql/{CHAIN_SIGS}: positions"
    signature = re.findall(r"core\.stage_byte\(chain_sig, reach_sig, (\d+)\)", code(RECORDS))
    assert [int(i) for i in signature] == list(range(n)), f"sql/{RECORDS}: one byte per stage"
    assert n * b <= BIGINT_BITS, f"sql/{RECORDS}: {n} stage bytes do not fit a BIGINT signature"
    assert number(UNPACK, r"range\((\d+)\)") == n, f"sql/{UNPACK}: unpacks every stage"
