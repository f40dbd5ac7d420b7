"""Set a state's fields only when their value changes.

Reflex marks a field dirty on every assignment, equal or not, and each dirty field is type-checked, serialized and
emitted to the browser with the event's delta (with the computed vars that read it). A page that assigns the same
lists on every visit sends them again each time: the dashboard's lists were a fifth of a navigation's CPU
(benchmarks/README.md, "CPU per step, by kind"). The browser keeps what it was sent, so a field left alone shows
its last value, which is the server's as long as every change is assigned.
"""

from __future__ import annotations

from collections.abc import Collection

from reflex.state import _ROUTER_FIELD_NAMES, BaseState


def assign(state: BaseState, **values: object) -> list[str]:
    """Set each named field whose value differs from the state's; returns the names set. Records (dataclasses)
    and lists of them compare by value."""
    changed = []
    for name, value in values.items():
        if state.get_value(name) != value:
            setattr(state, name, value)
            changed.append(name)
    return changed


def reset_changed(state: BaseState, *, keep: Collection[str] = ()) -> None:
    """`State.reset` (this state's own fields and its substates' to their defaults) that sets only the fields not
    at their default already, and leaves those named in `keep` (this state's) as they are."""
    cls = state.__class__
    for name, spec in cls.__fields__.items():
        if spec._owner is cls and name not in _ROUTER_FIELD_NAMES and name not in keep:
            default = spec.default_value()
            if state.get_value(name) != default:
                setattr(state, name, default)
    for substate in state.substates.values():
        reset_changed(substate)
