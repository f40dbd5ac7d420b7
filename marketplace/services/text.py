"""The one rule for text people send: no control characters (multi-line text may keep tab, newline and carriage
return) and no invalid Unicode (lone surrogates, which JSON's `\\ud800` escapes can carry and no database can
store). The API's request models and every service validator use it, so a Reflex state and an `/api` call are
refused alike (422), before anything is written.
"""

from __future__ import annotations

import re

from marketplace.services.errors import Invalid, InvalidParameter

# C0 controls, DEL, C1 controls, and the surrogate range (only ever lone in a Python str decoded from JSON).
_SINGLE_LINE = re.compile(r"[\x00-\x1f\x7f-\x9f\ud800-\udfff]")
_MULTI_LINE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")
NOT_ALLOWED = "{label} contains characters that are not allowed"


def has_forbidden(value: str, *, multiline: bool = False) -> bool:
    """True when `value` holds a control character (tab, newline and CR allowed if multi-line) or a lone surrogate."""
    return (_MULTI_LINE if multiline else _SINGLE_LINE).search(value) is not None


def check_text(value: str, *, field: str, label: str | None = None, multiline: bool = False) -> str:
    """`value` unchanged, or `InvalidParameter` (422) naming `field`."""
    if has_forbidden(value, multiline=multiline):
        raise InvalidParameter(NOT_ALLOWED.format(label=label or field), field=field)
    return value


def is_digits(value: str) -> bool:
    """ASCII digits only. `str.isdigit()` is also true for "²" (which `int()` refuses) and "٣" (which it reads as
    3): a number typed into a URL or a form must be plain 0-9."""
    return value.isascii() and value.isdigit()


def form_error(field: str, message: str) -> Invalid:
    """The error to raise for a form's first problem: 422 for refused characters (as the API's own check answers),
    400 for any other rule."""
    refused = message.endswith(NOT_ALLOWED.format(label=""))
    return (InvalidParameter if refused else Invalid)(message, field=field)
