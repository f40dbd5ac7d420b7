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
        target = rx.el.a(*children, href=href, target="_blank", rel="noopener noreferrer")
    elif isinstance(href, str) and href.startswith("/api/"):
        target = rx.el.a(*children, href=href)
    else:
        target = ReactRouterLink.create(*children, to=href)
    return rx.button(target, as_child=True, **props)
