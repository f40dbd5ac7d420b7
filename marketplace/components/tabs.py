"""One tab spec for every tabbed page: value, label, count and render drive the trigger list and the panels.

The selected value lives in a state var that the page's on_load fills from `?tab=`, so each tab has an address.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import reflex as rx
from reflex.vars import Var


@dataclass(frozen=True)
class TabSpec:
    value: str
    label: str
    count: Var[int] | None
    render: Callable[[], rx.Component]
    icon: str | None = None


def _trigger(spec: TabSpec, *, compact: bool) -> rx.Component:
    """`compact`: no icon between the md and xl breakpoints, where a long bar must fit one row."""
    parts: list[rx.Component | str] = []
    if spec.icon:
        parts.append(rx.icon(spec.icon, size=14, display=rx.breakpoints(initial="block", md="none", xl="block"))
                     if compact else rx.icon(spec.icon, size=14))
    parts.append(spec.label)
    if spec.count is not None:
        # Radix Themes renders a trigger's children twice (one hidden copy keeps its width): a class, not an id.
        parts.append(rx.cond(spec.count > 0, rx.badge(spec.count, variant="solid", radius="full", size="1",
                                                       class_name="tab-count")))
    return rx.tabs.trigger(rx.hstack(*parts, spacing="1", align="center"), value=spec.value, id=f"tab-{spec.value}")


def tab_view(specs: list[TabSpec], value: Var[str], on_change: Callable[[str], object], *,
             scroll_on_phone: bool = False) -> rx.Component:
    """Trigger list plus one panel per spec; only the selected panel is mounted by Radix. `scroll_on_phone`
    keeps many triggers on one line that scrolls sideways below the md breakpoint (they wrap above it); their
    padding is narrower and they drop their icons up to xl, so that the admin's eleven labels with counts fit
    on one row at 1280 px."""
    bar: dict[str, object] = {"flex_wrap": "wrap"}
    if scroll_on_phone:
        bar = {"flex_wrap": rx.breakpoints(initial="nowrap", md="wrap"), "overflow_x": "auto", "overflow_y": "hidden",
               "white_space": "nowrap", "max_width": "100%",
               "style": {"--tab-padding-x": "2px", "--tab-inner-padding-x": "var(--space-1)"}}
    return rx.tabs.root(
        rx.tabs.list(*[_trigger(spec, compact=scroll_on_phone) for spec in specs], **bar),
        *[rx.tabs.content(rx.box(spec.render(), padding_top="1.25em"), value=spec.value, id=f"panel-{spec.value}")
          for spec in specs],
        value=value, on_change=on_change, width="100%",
    )
