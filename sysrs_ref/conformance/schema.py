"""The JSON Schema (draft 2020-12) of the vectors files, written beside them as ``schema.json``."""

from __future__ import annotations

from sysrs_ref.conformance.values import JsonValue

__all__ = ["SCHEMA"]

_INT: dict[str, JsonValue] = {"type": "integer"}
_NAT: dict[str, JsonValue] = {"type": "integer", "minimum": 0}
_EXACT_TEXT: dict[str, JsonValue] = {
    "type": "string",
    "pattern": "^-?[0-9]+(/[0-9]+)?$",
    "description": "an exact rational, p/q",
}
_EXACT: dict[str, JsonValue] = {
    "description": "an exact value and its nearest double; null where infinite or undefined",
    "oneOf": [
        {"type": "null"},
        {
            "type": "object",
            "properties": {"exact": _EXACT_TEXT, "float": {"type": "number"}},
            "required": ["exact", "float"],
            "additionalProperties": False,
        },
    ],
}
_MATRIX: dict[str, JsonValue] = {
    "scores": {
        "description": "the K x L score matrix as JSON numbers (float64 values, scores in [0, 1])",
        "type": "array",
        "minItems": 2,
        "items": {"type": "array", "minItems": 1, "items": {"type": "number", "minimum": 0, "maximum": 1}},
    },
    "scores_exact": {
        "description": "the same matrix, each score as the exact rational value of its double",
        "type": "array",
        "minItems": 2,
        "items": {"type": "array", "minItems": 1, "items": _EXACT_TEXT},
    },
}
_PARAMS: dict[str, JsonValue] = {
    "type": "object",
    "additionalProperties": {"type": "string", "description": "an exact decimal, e.g. 0.1"},
}
_INDEX_LIST: dict[str, JsonValue] = {"type": "array", "items": _NAT}


def _case(input_schema: dict[str, JsonValue], expected_schema: dict[str, JsonValue]) -> dict[str, JsonValue]:
    return {
        "type": "object",
        "properties": {
            "id": {"type": "string", "minLength": 1},
            "note": {"type": "string"},
            "input": input_schema,
            "expected": expected_schema,
        },
        "required": ["id", "input", "expected"],
        "additionalProperties": False,
    }


def _object(properties: dict[str, JsonValue], required: list[str] | None = None) -> dict[str, JsonValue]:
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties) if required is None else required,
        "additionalProperties": False,
    }


_PRIORITY: dict[str, JsonValue] = {
    "description": "a permutation of 0..K-1, highest priority first: it breaks every tie",
    **_INDEX_LIST,
}

_CASES: dict[str, dict[str, JsonValue]] = {
    "algorithms": _case(
        _object(
            {
                "algorithm": {"type": "string"},
                "params": _PARAMS,
                "K": {"type": "integer", "minimum": 2},
                "L": {"type": "integer", "minimum": 1},
                "budget": {"type": "integer", "minimum": 2, "description": "n, with K <= n <= K L"},
                **_MATRIX,
                "draw": {
                    "anyOf": [
                        _object(
                            {
                                "query_orders": {
                                    "description": "one permutation of 0..L-1 (synchronized algorithms) or one per model",
                                    "type": "array",
                                    "minItems": 1,
                                    "items": _INDEX_LIST,
                                },
                                "arm_priority": _PRIORITY,
                            }
                        ),
                        _object(
                            {
                                "cell_order": {
                                    "description": "ucbe-lrf: a permutation of the K L cells (cell = model * L + query)",
                                    **_INDEX_LIST,
                                },
                                "arm_priority": _PRIORITY,
                                "seed": {
                                    "description": "ucbe-lrf: the stream's 64-bit seed (below 2^53 in these vectors)",
                                    **_NAT,
                                },
                            }
                        ),
                    ]
                },
            }
        ),
        _object(
            {
                "chosen": _NAT,
                "ranking": {"description": "all K models, best first", **_INDEX_LIST},
                "spent": _NAT,
                "batches": {
                    "description": "every batch of evaluation requests, in order, each [model, query] pair in order",
                    "type": "array",
                    "items": {
                        "type": "array",
                        "minItems": 1,
                        "items": {"type": "array", "prefixItems": [_NAT, _NAT], "minItems": 2, "maxItems": 2},
                    },
                },
            }
        ),
    ),
    "schedules": _case(
        _object({"K": {"type": "integer", "minimum": 2}, "L": {"type": "integer", "minimum": 1}, "budget": _INT}),
        _object(
            {
                "n_k": {"description": "n_1 .. n_{K-1}, capped at L when needed", **_INDEX_LIST},
                "spend": _NAT,
                "capped": {"type": "boolean"},
                "paper_n_k": {"description": "the paper's uncapped eq. (budget-schedule)", **_INDEX_LIST},
            }
        ),
    ),
    "budgets": _case(
        _object({"percentage": {"type": "string", "pattern": "^[0-9]+(\\.[0-9]+)?%$"}, "K": _INT, "L": _INT}),
        _object({"budget": {"description": "floor(p K L / 100), computed exactly", **_NAT}}),
    ),
    "hardness": _case(
        _object(dict(_MATRIX)),
        _object(
            {
                "best_mean": _EXACT,
                "mean": _EXACT,
                "deltas": {"type": "array", "items": _EXACT},
                "H1": _EXACT,
                "H2": _EXACT,
                "H3": _EXACT,
                "H3_prime": _EXACT,
                "arms": {
                    "description": "per suboptimal model; null when the best model is tied",
                    "oneOf": [
                        {"type": "null"},
                        {
                            "type": "array",
                            "items": _object(
                                {
                                    "model": _NAT,
                                    "delta": _EXACT,
                                    "var": _EXACT,
                                    "cov": _EXACT,
                                    "v_star": _EXACT,
                                    "theta": _EXACT,
                                    "theta_star": _EXACT,
                                    "H2_i": _EXACT,
                                    "H3_i": _EXACT,
                                }
                            ),
                        },
                    ],
                },
            }
        ),
    ),
    "bounds": _case(
        {
            "type": "object",
            "properties": {"bound": {"enum": ["sysrs", "sr", "ucbe", "bernstein_wor", "bernstein_paired", "lower"]}},
            "required": ["bound"],
        },
        _object(
            {
                "prefactor": _EXACT,
                "exponent": _EXACT,
                "value": {"type": "number", "description": "prefactor * exp(-exponent)"},
            }
        ),
    ),
    "exact": _case(
        _object({"algorithm": {"type": "string"}, "params": _PARAMS, "budget": _INT, **_MATRIX}),
        _object(
            {
                "error": _EXACT,
                "law": {
                    "description": "P(chosen = model) over every draw, by model",
                    "type": "object",
                    "additionalProperties": _EXACT,
                },
                "top_m_error": {
                    **_EXACT,
                    "description": "sar, sysar: P(the returned top-m set is not a true one), ties by the paper's rule",
                },
                "top_m_law": {
                    "description": 'sar, sysar: P(ranking[:m] = that tuple), keys like "0,2"',
                    "type": "object",
                    "additionalProperties": _EXACT,
                },
            },
            required=["error", "law"],
        ),
    ),
}

#: The schema of one vectors file (``<family>.json``).
SCHEMA: dict[str, JsonValue] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://sysrs-ref.invalid/vectors/schema.json",
    "title": "sysrs-ref test vectors: one family per file",
    "type": "object",
    "properties": {
        "format": {"const": "sysrs-ref-vectors"},
        "version": {"const": 1},
        "generator": {"type": "string"},
        "family": {"enum": list(_CASES)},
        "description": {"type": "string"},
        "cases": {"type": "array", "minItems": 1},
    },
    "required": ["format", "version", "generator", "family", "description", "cases"],
    "additionalProperties": False,
    "allOf": [
        {
            "if": {"properties": {"family": {"const": name}}},
            "then": {"properties": {"cases": {"items": {"$ref": f"#/$defs/{name}"}}}},
        }
        for name in _CASES
    ],
    "$defs": dict(_CASES),
}
