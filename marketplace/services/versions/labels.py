"""The rules for a new version's label and release notes, the one place both the API and the wizard meet them.

A label is 1 to 4 whole numbers separated by dots ('2', '1.4', '1.4.0', '1.4.0.2'), compared part by part with
missing parts read as 0 ('1.4' == '1.4.0'), and must be strictly greater than the live version's.
"""

from __future__ import annotations

import re

from marketplace.services.errors import Invalid
from marketplace.services.text import check_text, required_text

MAX_LABEL = 32  # agent_versions.label, agent_revisions.version_label
MAX_PARTS = 4
MAX_NOTES = 5_000
INITIAL_LABEL = "1.0.0"  # the label of a version published before labels were asked for
LABEL_FIELD = "version_label"
NOTES_FIELD = "release_notes"

LABEL_REQUIRED = "Version label is required when the files change"
LABEL_INVALID = "Version label must be 1 to 4 numbers separated by dots, such as 1.4.0"
LABEL_NOT_GREATER = "Version label must be greater than the live version {live}"
NOTES_REQUIRED = "Release notes are required when the files change"
NOTES_TOO_LONG = f"Release notes must be at most {MAX_NOTES:,} characters"
FIRST_LABEL_ZERO = "Version label must be greater than 0"

_LABEL = re.compile(r"[0-9]{1,9}(?:\.[0-9]{1,9}){0,3}")  # 1 to MAX_PARTS numbers


def parse_label(label: str) -> tuple[int, ...]:
    """'1.4.0' -> (1, 4, 0, 0), padded to four parts so that '1.4' and '1.4.0' compare equal."""
    parts = tuple(int(part) for part in label.split("."))
    return parts + (0,) * (MAX_PARTS - len(parts))


def clean_label(value: object, *, live: str) -> str:
    """The trimmed label, or 400: absent, not 1-4 dotted numbers, or not greater than `live`."""
    if value is not None and not isinstance(value, str):
        raise Invalid(LABEL_INVALID, field=LABEL_FIELD)
    text = check_text(value or "", field=LABEL_FIELD, label="Version label").strip()
    if not text:
        raise Invalid(LABEL_REQUIRED, field=LABEL_FIELD)
    if len(text) > MAX_LABEL or not _LABEL.fullmatch(text):
        raise Invalid(LABEL_INVALID, field=LABEL_FIELD)
    if parse_label(text) <= parse_label(live):
        raise Invalid(LABEL_NOT_GREATER.format(live=live), field=LABEL_FIELD)
    return text


def clean_first_label(value: object) -> str:
    """A new agent's first label: the trimmed label, `INITIAL_LABEL` when absent or empty, or 400: not 1-4 dotted
    numbers, or all zeros (there is no live version to be greater than)."""
    if value is not None and not isinstance(value, str):
        raise Invalid(LABEL_INVALID, field=LABEL_FIELD)
    text = check_text(value or "", field=LABEL_FIELD, label="Version label").strip()
    if not text:
        return INITIAL_LABEL
    if len(text) > MAX_LABEL or not _LABEL.fullmatch(text):
        raise Invalid(LABEL_INVALID, field=LABEL_FIELD)
    if not any(parse_label(text)):
        raise Invalid(FIRST_LABEL_ZERO, field=LABEL_FIELD)
    return text


def clean_first_notes(value: object) -> str:
    """A new agent's first release notes: optional (nothing changed yet), at most 5,000 characters."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return ""
    return clean_notes(value)


def clean_notes(value: object) -> str:
    """The trimmed Markdown notes, or 400: absent or empty, or longer than 5,000 characters."""
    return required_text(
        value,
        field=NOTES_FIELD,
        label="Release notes",
        limit=MAX_NOTES,
        missing=NOTES_REQUIRED,
        too_long=NOTES_TOO_LONG,
    )


def is_label(text: str) -> bool:
    return len(text) <= MAX_LABEL and _LABEL.fullmatch(text) is not None
