"""Forms in states: typing sets a whitelisted field and clears its error; a submit takes what the user saw."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

import reflex as rx


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
