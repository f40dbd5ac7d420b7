"""Forms in states: typing sets a whitelisted field and clears its error; a submit takes what the user saw."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import ClassVar

import reflex as rx
from reflex.event import EventSpec

# Run in the browser once the refusal is on screen: the page's first error line (components/forms.py `field`)
# names its field, which takes the focus. The errors arrive with the same update as this script, and React
# draws them a frame or two later: it looks for a few frames before giving up.
_FOCUS_FIRST_ERROR = """(() => { let frames = 0; const look = () => {
  const error = document.querySelector('[data-error-for]');
  const target = error && document.getElementById(error.dataset.errorFor);
  if (target) { target.focus(); } else if (++frames < 30) { requestAnimationFrame(look); }
}; requestAnimationFrame(look); })()"""


def focus_first_error() -> EventSpec:
    """After a refused submit the keyboard's focus goes to the first field in error (its error line describes
    it, so a screen reader reads both), not left on the button or dropped to the page."""
    return rx.call_script(_FOCUS_FIRST_ERROR)


def focus_field(element_id: str) -> EventSpec:
    """The focus to one field, for a refusal that has no error line of its own (a step left incomplete)."""
    return rx.call_script(f"document.getElementById({json.dumps(element_id)})?.focus()")


def take_submitted(state: object, form: Mapping[str, object] | None, fields: Mapping[str, str]) -> None:
    """Copy each submitted text field (form name -> state attribute) onto the state.

    Typed text reaches a state through debounced change events, which can arrive after a quick Enter or
    click on Submit; the form data sent with the submit is never behind what is on screen.
    """
    for name, attribute in fields.items():
        value = (form or {}).get(name)
        if isinstance(value, str):
            setattr(state, attribute, value)


def submitted_checkbox(form: Mapping[str, object] | None, name: str) -> bool | None:
    """Whether a named checkbox was ticked when its form was sent (a browser submits 'on' or nothing);
    None when no form data came (a handler called directly)."""
    if form is None:
        return None
    return form.get(name) in ("on", True)


class FormState(rx.State, mixin=True):
    """Typing in a form field: one `set_field` event sets the field and clears its error.

    A state lists the fields the browser may set in `FORM_FIELDS` (attribute -> key of its message in
    `errors`); any other name is ignored, so the browser never chooses which attribute is written. Pages bind
    `on_change=MyState.set_field("attribute")` (the typed value is the second argument).
    """

    FORM_FIELDS: ClassVar[Mapping[str, str]] = {}
    errors: dict[str, str] = {}

    @rx.event
    def set_field(self, name: str, value: str) -> None:
        if name not in self.FORM_FIELDS or not isinstance(value, str):
            return
        setattr(self, name, value)
        self.errors.pop(self.FORM_FIELDS[name], None)
