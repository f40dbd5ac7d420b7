"""One tab spec for every tabbed page: value, label, count and render drive the trigger list (a select on
phones) and the panels.

The selected value lives in a state var that the page's on_load fills from `?tab=`, so each tab has an address.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import reflex as rx
from reflex.vars import NumberVar, Var


@dataclass(frozen=True)
class TabSpec:
    value: str
    label: str
    count: NumberVar[int] | None
    render: Callable[[], rx.Component]
    icon: str | None = None


def _parts(spec: TabSpec, *, compact: bool = False) -> list[rx.Component | str]:
    """Icon, label and count, on a trigger and on the phone's option alike. `compact`: no icon between the md and
    xl breakpoints, where a long bar must fit one row."""
    parts: list[rx.Component | str] = []
    if spec.icon:
        parts.append(rx.icon(spec.icon, size=14, display=rx.breakpoints(initial="block", md="none", xl="block"))
                     if compact else rx.icon(spec.icon, size=14))
    parts.append(spec.label)
    if spec.count is not None:
        # Radix Themes renders a trigger's children twice (one hidden copy keeps its width): a class, not an id.
        parts.append(rx.cond(spec.count > 0, rx.badge(spec.count, variant="solid", radius="full", size="1",
                                                       class_name="tab-count")))
    return parts


def _trigger(spec: TabSpec, *, compact: bool) -> rx.Component:
    # Radix links a trigger and its panel by ids of its own; ours replace them (tests and `?tab=` use them), so
    # the links are named again here, else they point at ids that exist nowhere.
    return rx.tabs.trigger(rx.hstack(*_parts(spec, compact=compact), spacing="1", align="center"), value=spec.value,
                           id=f"tab-{spec.value}", aria_controls=f"panel-{spec.value}")


def _option(spec: TabSpec) -> rx.Component:
    """The tab as an option of the phone's select."""
    return rx.select.item(rx.hstack(*_parts(spec), spacing="2", align="center", as_="span"), value=spec.value,
                          class_name="tab-option")


def tab_view(specs: list[TabSpec], value: Var[str], on_change: Callable[[str], object], *, compact: bool = False,
             select_id: str = "tab-select", label: str = "Section") -> rx.Component:
    """Trigger list plus one panel per spec; only the selected panel is mounted by Radix.

    Below the md breakpoint (phones) the triggers give way to one select (`#select_id`, named `label`) that shows
    the open tab and lists them all: a row of tabs there showed two or three of them with no sign of the rest.
    `compact` narrows the triggers, drops their icons and takes the smaller type up to xl, so that the admin's
    thirteen labels with counts fit one row at 1280 px; what does not fit a narrower window wraps onto a second
    row. (A bar that scrolled sideways hid its last tabs behind an edge with no sign that they were there.)"""
    bar: dict[str, object] = {"flex_wrap": "wrap", "display": rx.breakpoints(initial="none", md="flex")}
    if compact:
        bar["size"] = rx.breakpoints(initial="1", xl="2")
        bar["style"] = {"--tab-padding-x": "2px", "--tab-inner-padding-x": "var(--space-1)"}
    picker = rx.box(
        rx.select.root(
            rx.select.trigger(width="100%", id=select_id, aria_label=label),
            rx.select.content(*[_option(spec) for spec in specs], position="popper"),
            value=value, on_change=on_change, size="3",
        ),
        display=rx.breakpoints(initial="block", md="none"), width="100%", class_name="tab-select",
    )
    return rx.tabs.root(
        picker,
        rx.tabs.list(*[_trigger(spec, compact=compact) for spec in specs], **bar),
        *[rx.tabs.content(rx.box(spec.render(), padding_top="1.25em"), value=spec.value, id=f"panel-{spec.value}",
                          aria_labelledby=f"tab-{spec.value}")
          for spec in specs],
        value=value, on_change=on_change, width="100%",
    )
