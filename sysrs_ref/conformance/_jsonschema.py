"""A small JSON Schema validator: the draft 2020-12 keywords the vectors' schemas use, and no dependency.

The conformance runner checks every reply line against
:func:`~sysrs_ref.conformance.schema.reply_schema` with it, so ``conform``
works without the ``jsonschema`` package (a dev extra). It knows

- ``type`` (object, array, string, integer, number, boolean, null; a boolean
  is neither an integer nor a number, and an integral float such as ``1.0``
  is not an integer: a JSON reader keeps them apart, and so do the vectors),
- ``properties``, ``required``, ``additionalProperties`` (a boolean or a schema),
- ``items``, ``prefixItems``, ``minItems``, ``maxItems``,
- ``enum``, ``const``, ``pattern`` (:func:`re.search`), ``minLength``,
  ``minimum``, ``maximum``,
- ``oneOf`` (exactly one), ``anyOf``, ``allOf``, ``if`` / ``then`` / ``else``,
- ``$ref`` to ``#/$defs/NAME`` of the root schema;

``description``, ``title``, ``$schema``, ``$id``, ``$defs``, ``$comment``,
``default`` and ``examples`` are annotations. Any other keyword is a
:class:`ValueError`: a schema this validator would silently misread is a
bug to fix, not an input to accept.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass

from sysrs_ref.conformance.values import JsonValue

__all__ = ["schema_error"]

_ANNOTATIONS = frozenset({"description", "title", "$schema", "$id", "$defs", "$comment", "default", "examples"})
_KEYWORDS = frozenset(
    {
        "type",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "prefixItems",
        "minItems",
        "maxItems",
        "enum",
        "const",
        "pattern",
        "minLength",
        "minimum",
        "maximum",
        "oneOf",
        "anyOf",
        "allOf",
        "if",
        "then",
        "else",
        "$ref",
    }
)
_ARTICLE = {
    "object": "an object",
    "array": "an array",
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "a boolean",
    "null": "null",
}
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

Path = tuple[str | int, ...]


@dataclass(frozen=True)
class _Violation:
    path: Path
    message: str
    kind: str = ""
    """"type" for a value of the wrong type, "required" for a missing key: the weakest evidence of a wrong branch."""
    wanted: tuple[str, ...] = ()
    """The types a "type" violation asked for."""

    def rank(self) -> tuple[int, bool, bool]:
        """Which of the failed branches of a oneOf / anyOf to report: the one that went deepest and fit best."""
        return len(self.path), self.kind != "type", self.kind != "required"


def _path_text(path: Path) -> str:
    """``output.batches[2]``, ``law["0,1"]``: a JSON path without the leading ``$``.

    >>> _path_text(("output", "batches", 2, 0)), _path_text(("law", "0,1")), _path_text(())
    ('output.batches[2][0]', 'law["0,1"]', '')
    """
    text = ""
    for part in path:
        if isinstance(part, int):
            text += f"[{part}]"
        elif _IDENTIFIER.match(part):
            text += f".{part}" if text else part
        else:
            text += '["' + part.replace("\\", "\\\\").replace('"', '\\"') + '"]'
    return text


def _json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, Mapping):
        return "object"
    raise ValueError(f"not a JSON value: {value!r}")


def _has_type(value: object, name: str) -> bool:
    kind = _json_type(value)
    return kind == name or (name == "number" and kind == "integer")


def _shown(value: object) -> str:
    """The value in a message: short scalars as JSON, containers by their kind."""
    kind = _json_type(value)
    if kind in ("array", "object"):
        return _ARTICLE[kind]
    if kind == "null":
        return "null"
    if kind == "boolean":
        text = "true" if value else "false"
    elif kind == "string":
        assert isinstance(value, str)
        text = '"' + (value if len(value) <= 40 else value[:37] + "...") + '"'
    else:
        text = repr(value)
    return f"{_ARTICLE[kind]} ({text})"


def _type_violation(value: object, wanted: tuple[str, ...], path: Path) -> _Violation:
    names = [_ARTICLE[name] for name in wanted]
    listed = ", ".join(names[:-1]) + f" or {names[-1]}" if len(names) > 1 else names[0]
    return _Violation(path, f"expected {listed}, got {_shown(value)}", "type", wanted)


def _literal(value: JsonValue) -> str:
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, bool):
        return "true" if value else "false"
    return "null" if value is None else str(value)


def _equal(a: object, b: object) -> bool:
    """JSON equality: 1 == 1.0, but true is not 1; objects and arrays compared member by member."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(_equal(a[key], b[key]) for key in a)
    return type(a) is type(b) and a == b


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")


class _Validator:
    def __init__(self, root: Mapping[str, JsonValue]) -> None:
        self.root = root

    def resolve(self, reference: str) -> Mapping[str, JsonValue]:
        name = reference.removeprefix("#/$defs/")
        definitions = self.root.get("$defs")
        if name == reference or not isinstance(definitions, Mapping) or name not in definitions:
            raise ValueError(f"unsupported or dangling $ref {reference!r}: only #/$defs/NAME of the root")
        target = definitions[name]
        if not isinstance(target, Mapping):
            raise ValueError(f"$ref {reference!r} is not a schema object")
        return target

    def check(self, value: JsonValue, schema: JsonValue, path: Path) -> _Violation | None:
        """The first violation of *schema* by *value* (at *path*), or None."""
        if isinstance(schema, bool):
            return None if schema else _Violation(path, "no value is allowed here")
        if not isinstance(schema, Mapping):
            raise ValueError(f"a schema is an object or a boolean, got {schema!r}")
        unknown = set(schema) - _KEYWORDS - _ANNOTATIONS
        if unknown:
            raise ValueError(f"the schema keyword(s) {sorted(unknown)} are not supported by this validator")
        for step in (self._ref, self._type, self._values, self._number, self._string, self._array, self._object):
            found = step(value, schema, path)
            if found:
                return found
        return self._combinators(value, schema, path)

    def _ref(self, value: JsonValue, schema: Mapping[str, JsonValue], path: Path) -> _Violation | None:
        reference = schema.get("$ref")
        if reference is None:
            return None
        if not isinstance(reference, str):
            raise ValueError(f"$ref must be a string, got {reference!r}")
        return self.check(value, self.resolve(reference), path)

    def _type(self, value: JsonValue, schema: Mapping[str, JsonValue], path: Path) -> _Violation | None:
        wanted = schema.get("type")
        if wanted is None:
            return None
        names = [wanted] if isinstance(wanted, str) else wanted
        if not isinstance(names, list) or not all(isinstance(name, str) and name in _ARTICLE for name in names):
            raise ValueError(f"unsupported type {wanted!r}")
        if any(_has_type(value, str(name)) for name in names):
            return None
        return _type_violation(value, tuple(str(name) for name in names), path)

    def _values(self, value: JsonValue, schema: Mapping[str, JsonValue], path: Path) -> _Violation | None:
        if "const" in schema and not _equal(value, schema["const"]):
            return _Violation(path, f"expected {_literal(schema['const'])}, got {_shown(value)}")
        if "enum" in schema:
            options = schema["enum"]
            if not isinstance(options, list):
                raise ValueError(f"enum must be a list, got {options!r}")
            if not any(_equal(value, option) for option in options):
                listed = ", ".join(_literal(option) for option in options)
                return _Violation(path, f"expected one of {listed}, got {_shown(value)}")
        return None

    def _number(self, value: JsonValue, schema: Mapping[str, JsonValue], path: Path) -> _Violation | None:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return None
        low, high = schema.get("minimum"), schema.get("maximum")
        if isinstance(low, (int, float)) and not value >= low:
            return _Violation(path, f"expected at least {low}, got {value!r}")
        if isinstance(high, (int, float)) and not value <= high:
            return _Violation(path, f"expected at most {high}, got {value!r}")
        if isinstance(value, float) and math.isnan(value) and (low is not None or high is not None):
            return _Violation(path, "expected a number in range, got NaN")  # pragma: no cover - not JSON
        return None

    def _string(self, value: JsonValue, schema: Mapping[str, JsonValue], path: Path) -> _Violation | None:
        if not isinstance(value, str):
            return None
        shortest = schema.get("minLength")
        if isinstance(shortest, int) and len(value) < shortest:
            return _Violation(
                path, f"expected a string of at least {_plural(shortest, 'character')}, got {_shown(value)}"
            )
        pattern = schema.get("pattern")
        if isinstance(pattern, str) and not re.search(pattern, value):
            return _Violation(path, f"expected a string matching {pattern}, got {_shown(value)}")
        return None

    def _array(self, value: JsonValue, schema: Mapping[str, JsonValue], path: Path) -> _Violation | None:
        if not isinstance(value, list):
            return None
        fewest, most = schema.get("minItems"), schema.get("maxItems")
        if isinstance(fewest, int) and len(value) < fewest:
            return _Violation(path, f"expected at least {_plural(fewest, 'item')}, got {len(value)}")
        if isinstance(most, int) and len(value) > most:
            return _Violation(path, f"expected at most {_plural(most, 'item')}, got {len(value)}")
        prefix = schema.get("prefixItems", [])
        if not isinstance(prefix, list):
            raise ValueError(f"prefixItems must be a list, got {prefix!r}")
        for index, (item, item_schema) in enumerate(zip(value, prefix, strict=False)):
            found = self.check(item, item_schema, (*path, index))
            if found:
                return found
        if "items" in schema:
            for index in range(len(prefix), len(value)):
                found = self.check(value[index], schema["items"], (*path, index))
                if found:
                    return found
        return None

    def _object(self, value: JsonValue, schema: Mapping[str, JsonValue], path: Path) -> _Violation | None:
        if not isinstance(value, Mapping):
            return None
        required = schema.get("required", [])
        if not isinstance(required, list):
            raise ValueError(f"required must be a list, got {required!r}")
        missing = [str(key) for key in required if key not in value]
        if missing:
            keys = ", ".join(f'"{key}"' for key in missing)
            return _Violation(path, f"missing the key{'s' if len(missing) > 1 else ''} {keys}", "required")
        properties = schema.get("properties", {})
        if not isinstance(properties, Mapping):
            raise ValueError(f"properties must be an object, got {properties!r}")
        for key, item in value.items():
            if key in properties:
                found = self.check(item, properties[key], (*path, key))
                if found:
                    return found
        extra = schema.get("additionalProperties", True)
        for key, item in value.items():
            if key in properties:
                continue
            if extra is False:
                allowed = ", ".join(f'"{name}"' for name in properties) or "none"
                return _Violation(path, f'unexpected key "{key}" (the keys allowed: {allowed})')
            found = self.check(item, extra, (*path, key))
            if found:
                return found
        return None

    def _combinators(self, value: JsonValue, schema: Mapping[str, JsonValue], path: Path) -> _Violation | None:
        for part in self._list(schema, "allOf"):
            found = self.check(value, part, path)
            if found:
                return found
        if "if" in schema:
            branch = "then" if self.check(value, schema["if"], path) is None else "else"
            if branch in schema:
                found = self.check(value, schema[branch], path)
                if found:
                    return found
        if "anyOf" in schema:
            failures = [self.check(value, part, path) for part in self._list(schema, "anyOf")]
            if all(failures):
                return self._best(value, [f for f in failures if f], path)
        if "oneOf" in schema:
            failures = [self.check(value, part, path) for part in self._list(schema, "oneOf")]
            matched = [index + 1 for index, failure in enumerate(failures) if failure is None]
            if not matched:
                return self._best(value, [f for f in failures if f], path)
            if len(matched) > 1:
                which = " and ".join(str(index) for index in matched)
                return _Violation(path, f"matches more than one alternative of a oneOf (numbers {which})")
        return None

    @staticmethod
    def _list(schema: Mapping[str, JsonValue], keyword: str) -> list[JsonValue]:
        parts = schema.get(keyword, [])
        if not isinstance(parts, list) or (keyword != "allOf" and not parts):
            raise ValueError(f"{keyword} must be a non-empty list of schemas, got {parts!r}")
        return parts

    @staticmethod
    def _best(value: JsonValue, failures: list[_Violation], path: Path) -> _Violation:
        """The failure to report when no alternative fits; a list of the types expected when none had the type."""
        if all(f.kind == "type" and f.path == path for f in failures):
            wanted = tuple(dict.fromkeys(name for failure in failures for name in failure.wanted))
            return _type_violation(value, wanted, path)
        return max(failures, key=_Violation.rank)


def schema_error(value: JsonValue, schema: Mapping[str, JsonValue]) -> str | None:
    """None when *value* is valid against *schema*; else its first violation, with the JSON path to it.

    When no alternative of a ``oneOf`` / ``anyOf`` fits, the violation
    reported is the one of the alternative that fit furthest (the deepest
    path; a wrong type or a missing key counts as not fitting at all).

    >>> schema = {"type": "object", "properties": {"batches": {"type": "array", "items": {"type": "array", "minItems": 1}}}}
    >>> schema_error({"batches": [[[0, 1]], [[1, 1]], []]}, schema)
    'batches[2]: expected at least 1 item, got 0'
    >>> schema_error({"batches": [[[0, 1]]]}, schema) is None
    True
    >>> schema_error(1.0, {"type": "integer"})
    'expected an integer, got a number (1.0)'
    >>> schema_error("0.5", {"oneOf": [{"type": "null"}, {"type": "string", "pattern": "^[0-9]+(/[0-9]+)?$"}]})
    'expected a string matching ^[0-9]+(/[0-9]+)?$, got a string ("0.5")'
    """
    found = _Validator(schema).check(value, schema, ())
    if found is None:
        return None
    where = _path_text(found.path)
    return f"{where}: {found.message}" if where else found.message
