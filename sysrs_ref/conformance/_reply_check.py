"""Replies and vectors files checked against their JSON Schema with ``jsonschema``, the standard validator.

``conform`` checks every reply line against
:func:`~sysrs_ref.conformance.schema.reply_schema` (draft 2020-12). The
validator is ``jsonschema`` (the optional ``conform`` extra; the ``dev``
extra installs it), with one deliberate change to its types: an integral
float such as ``1.0`` is not an integer, since a JSON reader keeps ``1.0``
apart from ``1`` and so do the vectors. Without ``jsonschema`` installed,
``conform`` stops with one line naming the extra.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import TYPE_CHECKING, Protocol, cast

from sysrs_ref.conformance.values import JsonValue
from sysrs_ref.errors import ParameterError

if TYPE_CHECKING:
    import jsonschema.exceptions

__all__ = ["INSTALL_HINT", "schema_error"]

INSTALL_HINT = "pip install 'sysrs-ref[conform]' (or pip install jsonschema)"


class _Error(Protocol):
    message: str
    absolute_path: object


class _Validator(Protocol):
    def iter_errors(self, instance: object) -> object: ...


def _strict_integer(checker: object, instance: object) -> bool:
    """An int that is not a bool: ``1.0`` is a number, not an integer."""
    return isinstance(instance, int) and not isinstance(instance, bool)


@cache
def _validator_class() -> type:
    try:
        import jsonschema
    except ImportError:
        raise ParameterError(
            f"checking replies against their schema needs jsonschema, the 'conform' extra: {INSTALL_HINT}"
        ) from None
    base = jsonschema.Draft202012Validator
    checker = base.TYPE_CHECKER.redefine("integer", _strict_integer)
    return cast(type, jsonschema.validators.extend(base, type_checker=checker))


def _where(path: object) -> str:
    """A JSON path as the runner prints it: ``output.batches[2]``."""
    text = ""
    for part in cast("list[str | int]", list(cast("list[object]", path))):
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _deepest(error: object) -> tuple[int, int]:
    """Rank an alternative's error: the deeper its path, the further the reply fitted (a wrong type fits least)."""
    found = cast("jsonschema.exceptions.ValidationError", error)
    return (len(found.absolute_path), 0 if found.validator == "type" else 1)


def schema_error(value: JsonValue, schema: Mapping[str, JsonValue]) -> str | None:
    """None when *value* is valid against *schema*; else jsonschema's most relevant error, with the JSON path to it.

    >>> schema = {"type": "object", "properties": {"batches": {"type": "array", "items": {"type": "array", "minItems": 1}}}}
    >>> schema_error({"batches": [[[0, 1]], [[1, 1]], []]}, schema)
    'batches[2]: [] should be non-empty'
    >>> schema_error({"batches": [[[0, 1]]]}, schema) is None
    True
    >>> schema_error(1.0, {"type": "integer"})
    "1.0 is not of type 'integer'"
    """
    validator = cast(_Validator, _validator_class()(dict(schema)))  # first: without jsonschema, the hint
    import jsonschema.exceptions

    best = jsonschema.exceptions.best_match(
        cast("list[jsonschema.exceptions.ValidationError]", validator.iter_errors(value))
    )
    if best is None:
        return None
    while best.context:  # no alternative of a oneOf / anyOf fits: say what is wrong in the one that fits best
        best = jsonschema.exceptions.best_match(best.context, key=_deepest)
    error = cast(_Error, best)
    where = _where(error.absolute_path)
    return f"{where}: {error.message}" if where else error.message
