"""The JSON Schemas (draft 2020-12) of the vectors files (``schema.json``) and of an adapter's reply lines.

A vectors case holds either ``expected`` (the output) or ``refused`` (the kind
of refusal its input must meet, one of :data:`REFUSAL_KINDS`). :func:`reply_schema`
is the schema of one reply line of the conformance protocol: the same output
shapes, with added keys allowed and an exact value answerable as a
``{"exact", "float"}`` object, a ``"p/q"`` text or a number.
"""

from __future__ import annotations

from sysrs_ref.conformance.values import JsonValue

__all__ = ["REFUSAL_KINDS", "SCHEMA", "reply_schema"]

#: The kinds of refusal, and when each applies (docs/contracts.md, "Refusals").
REFUSAL_KINDS: dict[str, str] = {
    "instance": "the matrix is not an instance: fewer than 2 models, no queries, ragged rows, a score outside "
    "[0, 1], or K and L that disagree with it",
    "params": "an algorithm parameter outside its domain: a <= 0 (UCB family), m outside 1..K-1 (sar, sysar), "
    "an unknown name",
    "budget": "a budget below K or above K L, or a percentage that maps outside [K, K L]",
    "draw": "a draw that does not fit: an order that is not a permutation, or one shared order for an "
    "unsynchronized algorithm (or K orders for a synchronized one)",
    "conditions": "a bound asked outside the conditions of its proof",
    "too_large": "an exact enumeration too large to carry out",
}

_INT: dict[str, JsonValue] = {"type": "integer"}
_NAT: dict[str, JsonValue] = {"type": "integer", "minimum": 0}
_EXACT_TEXT: dict[str, JsonValue] = {
    "type": "string",
    "pattern": "^-?[0-9]+(/[0-9]+)?$",
    "description": "an exact rational, p/q",
}
_EXACT_OBJECT: dict[str, JsonValue] = {
    "type": "object",
    "properties": {"exact": _EXACT_TEXT, "float": {"type": "number"}},
    "required": ["exact", "float"],
    "additionalProperties": False,
}
_EXACT: dict[str, JsonValue] = {
    "description": "an exact value and its nearest double; null where infinite or undefined",
    "oneOf": [{"type": "null"}, _EXACT_OBJECT],
}
_EXACT_REPLY: dict[str, JsonValue] = {
    "description": "an exact value: the {exact, float} object, the p/q text, a number, or null",
    "oneOf": [{"type": "null"}, _EXACT_OBJECT, _EXACT_TEXT, {"type": "number"}],
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
_TAGS: dict[str, JsonValue] = {
    "description": "the rules the case exercises (the file's top-level tags object states each)",
    "type": "array",
    "items": {"type": "string"},
}
_KIND: dict[str, JsonValue] = {"description": "the kind of refusal", "enum": list(REFUSAL_KINDS)}


def _object(
    properties: dict[str, JsonValue], required: list[str] | None = None, *, closed: bool = True
) -> dict[str, JsonValue]:
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties) if required is None else required,
        "additionalProperties": not closed,
    }


def _case(input_schema: dict[str, JsonValue], expected_schema: dict[str, JsonValue]) -> dict[str, JsonValue]:
    """A case: a valid input with its expected output, or any input object with the refusal it must meet."""
    common: dict[str, JsonValue] = {"id": {"type": "string", "minLength": 1}, "note": {"type": "string"}, "tags": _TAGS}
    return {
        "oneOf": [
            _object(
                {**common, "input": input_schema, "expected": expected_schema},
                required=["id", "tags", "input", "expected"],
            ),
            _object(
                {**common, "input": {"type": "object"}, "refused": _KIND},
                required=["id", "tags", "input", "refused"],
            ),
        ]
    }


_PRIORITY: dict[str, JsonValue] = {
    "description": "a permutation of 0..K-1, highest priority first: it breaks every tie",
    **_INDEX_LIST,
}

_INPUTS: dict[str, dict[str, JsonValue]] = {
    "algorithms": _object(
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
    "schedules": _object(
        {"K": {"type": "integer", "minimum": 2}, "L": {"type": "integer", "minimum": 1}, "budget": _INT}
    ),
    "budgets": _object({"percentage": {"type": "string", "pattern": "^[0-9]+(\\.[0-9]+)?%$"}, "K": _INT, "L": _INT}),
    "hardness": _object(dict(_MATRIX)),
    "bounds": {
        "type": "object",
        "properties": {"bound": {"enum": ["sysrs", "sr", "ucbe", "bernstein_wor", "bernstein_paired", "lower"]}},
        "required": ["bound"],
    },
    "exact": _object({"algorithm": {"type": "string"}, "params": _PARAMS, "budget": _INT, **_MATRIX}),
}


def _outputs(reply: bool) -> dict[str, dict[str, JsonValue]]:
    """The output of each family: closed objects of exact values in the vectors, open ones in a reply."""
    exact = _EXACT_REPLY if reply else _EXACT
    closed = not reply

    def obj(properties: dict[str, JsonValue], required: list[str] | None = None) -> dict[str, JsonValue]:
        return _object(properties, required, closed=closed)

    arm = obj(
        {
            "model": _NAT,
            "delta": exact,
            "var": exact,
            "cov": exact,
            "v_star": exact,
            "theta": exact,
            "theta_star": exact,
            "H2_i": exact,
            "H3_i": exact,
        }
    )
    return {
        "algorithms": obj(
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
        "schedules": obj(
            {
                "n_k": {"description": "n_1 .. n_{K-1}, capped at L when needed", **_INDEX_LIST},
                "spend": _NAT,
                "capped": {"type": "boolean"},
                "paper_n_k": {"description": "the paper's uncapped eq. (budget-schedule)", **_INDEX_LIST},
            }
        ),
        "budgets": obj({"budget": {"description": "floor(p K L / 100), computed exactly", **_NAT}}),
        "hardness": obj(
            {
                "best_mean": exact,
                "mean": exact,
                "deltas": {"type": "array", "items": exact},
                "H1": exact,
                "H2": exact,
                "H3": exact,
                "H3_prime": exact,
                "arms": {
                    "description": "per suboptimal model; null when the best model is tied",
                    "oneOf": [{"type": "null"}, {"type": "array", "items": arm}],
                },
            }
        ),
        "bounds": obj(
            {
                "prefactor": exact,
                "exponent": exact,
                "value": {"type": "number", "description": "prefactor * exp(-exponent), within a relative 1e-12"},
            }
        ),
        "exact": obj(
            {
                "error": exact,
                "law": {
                    "description": "P(chosen = model) over every draw, by model",
                    "type": "object",
                    "additionalProperties": exact,
                },
                "top_m_error": {
                    **exact,
                    "description": "sar, sysar: P(the returned top-m set is not a true one), ties by the paper's rule",
                },
                "top_m_law": {
                    "description": 'sar, sysar: P(ranking[:m] = that tuple), keys like "0,2"',
                    "type": "object",
                    "additionalProperties": exact,
                },
            },
            required=["error", "law"],
        ),
    }


def _reply(family: str) -> dict[str, JsonValue]:
    output = _outputs(reply=True)[family]
    text: dict[str, JsonValue] = {"type": "string"}
    return {
        "description": f"a conformance reply to a case of the family {family!r}: the id and exactly one more key",
        "oneOf": [
            _object({"id": {"type": "string"}, "output": output}),
            _object({"id": {"type": "string"}, "unsupported": text}),
            _object({"id": {"type": "string"}, "error": text}),
            _object({"id": {"type": "string"}, "refused": _KIND}),
        ],
    }


_OUTPUTS = _outputs(reply=False)
_CASES: dict[str, dict[str, JsonValue]] = {family: _case(_INPUTS[family], _OUTPUTS[family]) for family in _INPUTS}

#: The schema of one vectors file (``<family>.json``).
SCHEMA: dict[str, JsonValue] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://sysrs-ref.invalid/vectors/schema.json",
    "title": "sysrs-ref test vectors: one family per file",
    "description": "A vectors file (<family>.json). $defs/<family> is the schema of one of its cases; "
    "$defs/reply-<family> is the schema of an implementation's reply line to such a case in the conformance "
    "protocol of python -m sysrs_ref conform.",
    "type": "object",
    "properties": {
        "format": {"const": "sysrs-ref-vectors"},
        "version": {"const": 2},
        "generator": {"type": "string"},
        "family": {"enum": list(_CASES)},
        "description": {"type": "string"},
        "tags": {
            "description": "the rule each tag of this file's cases exercises",
            "type": "object",
            "additionalProperties": {"type": "string"},
        },
        "refusals": {
            "description": "the kinds of refusal and when each applies",
            "type": "object",
            "additionalProperties": {"type": "string"},
        },
        "cases": {"type": "array", "minItems": 1},
    },
    "required": ["format", "version", "generator", "family", "description", "tags", "refusals", "cases"],
    "additionalProperties": False,
    "allOf": [
        {
            "if": {"properties": {"family": {"const": name}}},
            "then": {"properties": {"cases": {"items": {"$ref": f"#/$defs/{name}"}}}},
        }
        for name in _CASES
    ],
    "$defs": {**_CASES, **{f"reply-{family}": _reply(family) for family in _CASES}},
}


def reply_schema(family: str) -> dict[str, JsonValue]:
    """The schema of one reply line for a case of *family*: ``{"id", "output" | "unsupported" | "error" | "refused"}``.

    ``schema.json`` holds the same schemas as ``$defs/reply-<family>``.

    >>> sorted(reply_schema("budgets")["oneOf"][0]["required"])
    ['id', 'output']
    """
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **_reply(family)}
