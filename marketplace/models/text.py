"""The one rule for text people send: no control characters (multi-line text may keep tab, newline and carriage
return) and no invalid Unicode (lone surrogates, which JSON's `\\ud800` escapes can carry and no database can
store). It sits with the models because the API's request models (`ApiInput`) apply it and models import no
service; `services/text.py` builds the services' validators (and their errors) on it.
"""

from __future__ import annotations

import re

# C0 controls, DEL, C1 controls, and the surrogate range (only ever lone in a Python str decoded from JSON).
_SINGLE_LINE = re.compile(r"[\x00-\x1f\x7f-\x9f\ud800-\udfff]")
_MULTI_LINE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")


def has_forbidden(value: str, *, multiline: bool = False) -> bool:
    """True when `value` holds a control character (tab, newline and CR allowed if multi-line) or a lone surrogate."""
    return (_MULTI_LINE if multiline else _SINGLE_LINE).search(value) is not None
