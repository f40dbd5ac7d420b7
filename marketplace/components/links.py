"""A control that goes somewhere is a link, also when it looks like a button."""

from __future__ import annotations

import reflex as rx
from reflex.components.react_router.dom import ReactRouterLink


def button_link(*children: rx.Component | rx.Var | str, href: str | rx.Var[str], is_external: bool = False,
                **props: object) -> rx.Component:
    """One `<a href>` drawn as a Radix button (a button inside a link would be two stops for the keyboard and
    invalid HTML). App pages are routed in the page; `/api/...` addresses (sign-in, single sign-on) are left to
    the browser, which must load them itself; `is_external` opens another site in a new tab."""
    if is_external:
        target = ReactRouterLink.create(*children, to=href, target="_blank", rel="noopener noreferrer")
    else:  # (Reflex draws every `<a href>` as a router link: a full load has to be asked for)
        full_load = isinstance(href, str) and href.startswith("/api/")
        target = ReactRouterLink.create(*children, to=href, reload_document=full_load)
    return rx.button(target, as_child=True, **props)


def menu_link(label: str, href: str, **props: object) -> rx.Component:
    """A menu entry that goes somewhere: the menu item's role, keys and closing on the link itself (one plain
    router link as the item's only child, which Radix's `asChild` needs)."""
    return rx.menu.item(ReactRouterLink.create(label, to=href), as_child=True, **props)
