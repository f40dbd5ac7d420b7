"""Validators for text people send, on the one character rule (`models/text.py`: no control characters, no
invalid Unicode). The API's request models and every service validator use that rule, so a Reflex state and an
`/api` call are refused alike (422), before anything is written.
"""

from __future__ import annotations

import re
from decimal import Decimal

from marketplace.models.text import has_forbidden
from marketplace.services.errors import Invalid, InvalidParameter

__all__ = ["NOT_ALLOWED", "bounded_number", "check_text", "form_error", "has_forbidden", "is_digits", "plain_number",
           "required_text"]

NOT_ALLOWED = "{label} contains characters that are not allowed"


def check_text(value: str, *, field: str, label: str | None = None, multiline: bool = False) -> str:
    """`value` unchanged, or `InvalidParameter` (422) naming `field`."""
    if has_forbidden(value, multiline=multiline):
        raise InvalidParameter(NOT_ALLOWED.format(label=label or field), field=field)
    return value


def required_text(value: object, *, field: str, label: str, limit: int, missing: str, too_long: str) -> str:
    """A person's required free text (a reason, an answer): trimmed, several lines allowed; 400 with `missing`
    when absent, empty or not text, with `too_long` past `limit` characters; 422 for characters not allowed."""
    if value is not None and not isinstance(value, str):
        raise Invalid(missing, field=field)
    text = check_text(value or "", field=field, label=label, multiline=True).strip()
    if not text:
        raise Invalid(missing, field=field)
    if len(text) > limit:
        raise Invalid(too_long, field=field)
    return text


def is_digits(value: str) -> bool:
    """ASCII digits only. `str.isdigit()` is also true for "²" (which `int()` refuses) and "٣" (which it reads as
    3): a number typed into a URL or a form must be plain 0-9."""
    return value.isascii() and value.isdigit()


MAX_NUMBER_TEXT = 32
_PLAIN_NUMBER = re.compile(r"[0-9]+(?:\.[0-9]*)?|\.[0-9]+")


def plain_number(value: str) -> Decimal | None:
    """A number as a person types it: ASCII digits with at most one decimal point ("15", "0.92", ".5"), spaces
    around ignored; None for anything else. `Decimal()` alone also reads signs, exponents ("1e30", whose
    rounding then overflows), "_" separators, "NaN", "Infinity" and other scripts' digits (Arabic-Indic "15" as 15)."""
    text = value.strip()
    if len(text) > MAX_NUMBER_TEXT or not _PLAIN_NUMBER.fullmatch(text):
        return None
    return Decimal(text)


def bounded_number(value: str, *, low: Decimal, high: Decimal, places: int) -> Decimal | None:
    """`plain_number` from `low` to `high` with at most `places` decimals, or None."""
    number = plain_number(value)
    if number is None or not low <= number <= high or number != round(number, places):
        return None
    return number


def form_error(field: str, message: str) -> Invalid:
    """The error to raise for a form's first problem: 422 for refused characters (as the API's own check answers),
    400 for any other rule."""
    refused = message.endswith(NOT_ALLOWED.format(label=""))
    return (InvalidParameter if refused else Invalid)(message, field=field)
