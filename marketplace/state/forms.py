"""What a submitted form holds is what the user saw: states take it before checking anything."""

from __future__ import annotations

from collections.abc import Mapping


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
