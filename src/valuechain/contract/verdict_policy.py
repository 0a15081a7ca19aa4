"""A user's verdict policy file (`--policy FILE`, TOML or JSON) over the §6.1 defaults.

The export carries the suite's own settings (TRACE-FORMAT §3.7.2); the contract supplies the
defaults for what it omits (§6.1: all configured trials attempted with at least one gradeable,
completion ≥ 0.8, evaluator errors ≤ 0.1). A policy file states what a reader wants decided
instead — a stricter CI gate, say — and each key it sets replaces the run's value; what it
omits keeps the run's. Keys are camelCase (snake_case accepted too); unknown keys, percents
(`80` for 0.8), booleans for numbers and a floor below 1 are refused. The decision says which
policy it was decided under (`validity.policy`), so an override is never silent.
"""

from __future__ import annotations

import json
import tomllib
from typing import Annotated, Any, Final

from pydantic import MISSING, ConfigDict, Field, ValidationError

from valuechain.contract.tallies import Fraction, StrictModel
from valuechain.contract.verdict import EVAL_VERDICT_POLICY_SCHEMA_ID, CaseId

POLICY_FILE_SCHEMA_ID: Final = "urn:valuechain:schema:verdict-policy-file:v1"


class VerdictPolicyFile(StrictModel):
    """Overrides of the verdict policy v2 inputs; every key optional."""

    model_config = ConfigDict(
        title="ValuechainVerdictPolicy",
        json_schema_extra={
            "$id": POLICY_FILE_SCHEMA_ID,
            "description": (
                f"Overrides of the inputs of {EVAL_VERDICT_POLICY_SCHEMA_ID}: the coverage floor, "
                "the two validity rates, and pass thresholds (fractions in [0,1], never percents)."
            ),
        },
    )

    min_eligible_trials: Annotated[int, Field(ge=1)] | MISSING = MISSING
    min_completion_rate: Fraction | MISSING = MISSING
    max_evaluator_error_rate: Fraction | MISSING = MISSING
    default_pass_threshold: Fraction | MISSING = MISSING
    case_pass_thresholds: dict[CaseId, Fraction] | MISSING = MISSING

    def overrides(self) -> dict[str, Any]:
        """The keys the file sets, by field name."""
        return {k: v for k, v in self.__dict__.items() if v is not MISSING}


class PolicyFileError(ValueError):
    """A policy file that does not parse or validate; the message names the key and why."""


def parse_policy_file(text: str, *, toml: bool) -> VerdictPolicyFile:
    """Parse and validate a policy file's text (TOML when ``toml``, else JSON).

    Raises:
        PolicyFileError: not TOML/JSON, or a key that breaks the schema.
    """
    try:
        data = tomllib.loads(text) if toml else json.loads(text)
    except (tomllib.TOMLDecodeError, json.JSONDecodeError) as error:
        raise PolicyFileError(f"not valid {'TOML' if toml else 'JSON'}: {error}") from None
    if not isinstance(data, dict):
        raise PolicyFileError("the policy must be an object of keys")
    try:
        return VerdictPolicyFile.model_validate(data, strict=True)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(top level)"
        raise PolicyFileError(f"{where}: {first['msg']}") from None


def verdict_policy_json_schema() -> dict[str, Any]:
    """JSON Schema (2020-12) of the policy file, generated from the model."""
    schema = VerdictPolicyFile.model_json_schema(by_alias=True, mode="validation")
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": POLICY_FILE_SCHEMA_ID,
        **schema,
    }
