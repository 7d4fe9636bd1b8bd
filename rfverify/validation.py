"""Argument validation shared by the Python API of every kind: a wrong argument is one :class:`UsageError` line.

The CLI parses text into these same arguments, so a bad value is rejected by
the same code whichever way it came in.

>>> as_flag(True, "unbiased")
True
>>> as_flag("no", "unbiased")
Traceback (most recent call last):
    ...
rfverify.errors.UsageError: unbiased must be True or False, got 'no'
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from rfverify.errors import UsageError

__all__ = ["as_flag", "as_name", "as_check_names", "as_xfail", "as_params", "show"]


def show(text: str) -> str:
    r"""A user-supplied name for an error message: as is when printable, else its repr (one line, visible).

    >>> show("contract"), show("a\x1eb")
    ('contract', "'a\\x1eb'")
    """
    return text if isinstance(text, str) and text.isprintable() and text.strip() == text and text else repr(text)


def as_flag(value: Any, what: str) -> bool:
    """``True``/``False`` (numpy bools too); anything else — ``"no"``, 1, None — is a UsageError."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise UsageError(f"{what} must be True or False, got {value!r}")


def as_name(value: Any, what: str = "name") -> str | None:
    """None or a non-empty string."""
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise UsageError(f"{what} must be a non-empty string, got {value!r}")
    return value


def as_check_names(value: Any) -> list[str] | None:
    """None (every check) or an iterable of check names; a bare string is refused (it would be letters)."""
    if value is None:
        return None
    if isinstance(value, str):
        raise UsageError(f"checks must be a list of check names, e.g. checks=[{value!r}], got the string {value!r}")
    if not isinstance(value, Iterable):
        raise UsageError(f"checks must be a list of check names, got {type(value).__name__}")
    names = list(value)
    bad = [n for n in names if not isinstance(n, str)]
    if bad:
        raise UsageError(f"checks must be check names (strings), got {bad[0]!r}")
    return names


def as_xfail(value: Any) -> dict[str, str] | None:
    """None or a mapping {check name: reason}, both strings."""
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise UsageError(f"xfail must be a mapping {{check: reason}}, got {type(value).__name__}")
    for k, v in value.items():
        if not isinstance(k, str) or not isinstance(v, str) or not v.strip():
            raise UsageError(f"xfail must map check names to reasons (non-empty strings), got {k!r}: {v!r}")
    return dict(value)


def as_params(value: Any, what: str = "kernel_params") -> dict[str, Any]:
    """None or a mapping of parameter names (identifiers) to values."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise UsageError(f"{what} must be a mapping {{name: value}}, got {type(value).__name__}")
    for k in value:
        if not isinstance(k, str) or not k.isidentifier():
            raise UsageError(f"{what} keys must be parameter names, got {k!r}")
    return dict(value)
