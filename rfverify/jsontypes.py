"""The names of JSON data in type annotations: :data:`JSONValue` and :data:`JSONRecord`.

A report document, a check's ``details``, a study's record, a configuration's ``as_dict`` and the forms of an
explored configuration are JSON data: read back from a file written by any schema version (or about to be
written), their shape is checked where they are read.  This module imports nothing of rfverify, so that every core
module can name them (:mod:`rfverify.results` re-exports them).
"""

from __future__ import annotations

from typing import Any, Mapping, TypeAlias

__all__ = ["JSONValue", "JSONRecord"]

#: A value of JSON data: a number, string, bool, None, list or str-keyed mapping of them.  ``Any``, named, because
#: a precise recursive type would make every reader narrow what it already checks with ``isinstance``/``.get``.
JSONValue: TypeAlias = Any
#: A JSON object: str keys, :data:`JSONValue` values.
JSONRecord: TypeAlias = Mapping[str, JSONValue]
