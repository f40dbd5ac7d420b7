"""The page frame every page shares: skip link, header (top bar and its navigation), banners, `main`, footer."""

from __future__ import annotations

from typing import Any

import reflex as rx
from reflex.vars.function import FunctionStringVar

from marketplace.components.links import button_link, menu_link
from marketplace.components.spinner import page_spinner
from marketplace.state.session import SessionEvents, SessionState


def _nav_link(label: str, href: str) -> rx.Component:
    return rx.link(label, href=href, size="3", weight="medium", color_scheme="gray", high_contrast=True,
                   underline="none", class_name="top-bar-link")


NAV_LINKS = [("Browse Agents", "/agents"), ("Categories", "/categories")]


def _nav_menu() -> rx.Component:
    """Below the sm breakpoint (768 px) the top bar has no room for its links: a menu button holds them. A Radix menu,
    so it opens from the keyboard, moves with the arrow keys and closes on Escape or once an item is chosen."""
    return rx.box(
        rx.menu.root(
            rx.menu.trigger(
                rx.icon_button(rx.icon("menu", size=20), variant="ghost", color_scheme="gray", size="2",
                               aria_label="Menu", id="nav-menu"),
            ),
            rx.menu.content(
                *[menu_link(label, href, class_name="nav-menu-item") for label, href in NAV_LINKS],
                align="start", id="nav-menu-content",
            ),
        ),
        display=rx.breakpoints(initial="flex", sm="none"),
    )


def _avatar_menu() -> rx.Component:
    return rx.menu.root(
        rx.menu.trigger(
            rx.button(
                rx.avatar(fallback=SessionState.initials, size="2", radius="full"),
                variant="ghost", radius="full", aria_label="Account menu", id="avatar-menu",
            ),
        ),
        rx.menu.content(
            rx.box(
                rx.text(SessionState.display_name, weight="bold", size="2"),
                rx.text(SessionState.email, size="1", color_scheme="gray"),
                padding_x="0.75em", padding_y="0.5em",
            ),
            rx.menu.separator(),
            menu_link("Dashboard", "/dashboard"),
            rx.cond(SessionState.role == "vendor", menu_link("Vendor Dashboard", "/vendor")),
            rx.cond(SessionState.role == "admin", menu_link("Admin Panel", "/admin")),
            rx.menu.separator(),
            rx.menu.item("Log out", color="red", on_click=SessionEvents.logout),
            align="end",
        ),
    )


def brand() -> rx.Component:
    """The product's name in the top bar: a heading's look, not a heading (each page's own title is its h1)."""
    return rx.hstack(rx.text("🤖", size="6", aria_hidden="true"),
                     rx.heading(rx.el.span("AgentMarket"), size=rx.breakpoints(initial="4", sm="5"), as_child=True),
                     align="center", spacing="2")


def top_bar() -> rx.Component:
    return rx.el.header(
        rx.hstack(
            rx.el.nav(_nav_menu(), aria_label="Main", display=rx.breakpoints(initial="block", sm="none")),
            rx.link(brand(), href="/", underline="none", color_scheme="gray", high_contrast=True,
                    aria_label="AgentMarket home"),
            rx.el.nav(
                rx.hstack(*[_nav_link(label, href) for label, href in NAV_LINKS], spacing="5"),
                aria_label="Main", display=rx.breakpoints(initial="none", sm="block"),
            ),
            rx.spacer(),
            rx.cond(
                SessionState.checked,
                rx.cond(
                    SessionState.signed_in,
                    _avatar_menu(),
                    rx.hstack(
                        button_link("Sign In", href="/api/login", variant="ghost",
                                    size=rx.breakpoints(initial="1", sm="2")),
                        button_link("Get Started", href="/api/login", size=rx.breakpoints(initial="1", sm="2")),
                        spacing="3", align="center",
                    ),
                ),
            ),
            align="center", spacing=rx.breakpoints(initial="3", md="6"), max_width="1200px", margin_x="auto",
            padding_x=rx.breakpoints(initial="0.75em", sm="1.5em"),
            height="64px",
        ),
        border_bottom="1px solid var(--gray-a5)", background="var(--color-background)",
        position="sticky", top="0", z_index="10", display="block",
    )


def _strip(*children: rx.Component, color: str, strip_id: str) -> rx.Component:
    return rx.box(
        rx.hstack(*children, align="center", spacing="2", wrap="wrap", max_width="1200px", margin_x="auto",
                  padding_x=rx.breakpoints(initial="0.75em", sm="1.5em"), padding_y="0.4em"),
        # Step 12 of the scale: step 11 on step 3 is 4.24:1 for amber, under WCAG AA's 4.5:1.
        background=f"var(--{color}-3)", border_bottom=f"1px solid var(--{color}-6)", color=f"var(--{color}-12)",
        font_size="var(--font-size-2)", id=strip_id, role="status",
    )


def demo_banner() -> rx.Component:
    """While demo mode is on, every page says so: test data, test payments, role switching for anyone."""
    return rx.cond(
        SessionState.demo_mode,
        _strip(
            rx.icon("flask-conical", size=16),
            rx.text(rx.text.strong("Demo mode"), " — test data and test payments; any signed-in user can switch "
                    "roles.", size="2"),
            rx.link("Mailbox", href="/dev/mail", size="2", weight="medium"),
            rx.link("Testing center", href="/demo-setup", size="2", weight="medium"),
            color="amber", strip_id="demo-banner",
        ),
    )


def verification_banner() -> rx.Component:
    """Until the account's address (or the new one it asked for) is confirmed."""
    return rx.cond(
        SessionState.needs_confirmation,
        _strip(
            rx.icon("mail-warning", size=16),
            rx.text(
                rx.cond(SessionState.pending_email != "",
                        f"Confirm your new e-mail address {SessionState.pending_email}: we sent a link there.",
                        f"Please confirm your e-mail address {SessionState.email}: we sent you a link."),
                size="2",
            ),
            rx.button(rx.cond(SessionState.resending, "Sending...", "Resend link"), size="1", variant="soft",
                      on_click=SessionEvents.resend_verification, disabled=SessionState.resending,
                      id="resend-verification"),
            color="blue", strip_id="verify-banner",
        ),
    )


# The skip link stays off screen until it has the keyboard's focus; `main` takes focus from it without a ring
# (it is not a control); links (cards too) get the theme's focus ring when reached by keyboard, as its buttons and
# inputs do (a menu's entries show theirs as the highlighted row).
FRAME_CSS = """
.skip-link { position: absolute; left: 0.75em; top: -100px; z-index: 100; padding: 0.6em 1em;
  background: var(--color-background); color: var(--accent-12); border-radius: var(--radius-3);
  font-weight: 500; box-shadow: var(--shadow-4); }
.skip-link:focus { top: 0.6em; outline: 2px solid var(--focus-8); outline-offset: 2px; }
#main-content:focus { outline: none; }
a:not([role="menuitem"]):focus-visible { outline: 2px solid var(--focus-8); outline-offset: 2px; }
"""


# The app's router takes the link's address in the page, where a browser would have focused the target: the
# press hands the focus to `main` itself (in a browser task of its own, once the router is done).
_FOCUS_MAIN: FunctionStringVar[Any] = FunctionStringVar.create(
    "(() => window.setTimeout(() => document.getElementById('main-content')?.focus()))")


def skip_link() -> rx.Component:
    """The first thing a keyboard reaches: past the top bar to the page's own content."""
    return rx.el.a("Skip to content", href="#main-content", on_click=_FOCUS_MAIN, class_name="skip-link",
                   id="skip-link")


def site_footer() -> rx.Component:
    return rx.el.footer(
        container(
            rx.hstack(
                rx.text("© AgentMarket", color_scheme="gray", size="2", white_space="nowrap"),
                rx.spacer(),
                *[rx.link(label, href="#", color_scheme="gray", size="2")
                  for label in ("About", "Terms", "Privacy", "Contact")],
                spacing="4", wrap="wrap", id="footer",
            ),
        ),
        border_top="1px solid var(--gray-a5)",
    )


def page_frame(content: rx.Component, *, pending: rx.Component | None = None) -> rx.Component:
    """Every page: skip link, header and banners, then in `main` the `pending` view (a spinner unless the page
    has its own loading view) until the session is known, then the content; the footer last."""
    return rx.box(
        rx.el.style(FRAME_CSS),
        skip_link(),
        top_bar(),
        demo_banner(),
        verification_banner(),
        rx.el.main(
            rx.cond(SessionState.checked, content, pending if pending is not None else page_spinner()),
            id="main-content", tab_index=-1, flex="1", width="100%",
        ),
        site_footer(),
        rx.cond(SessionState.is_hydrated, rx.box(id="hydrated", display="none")),
        min_height="100vh", display="flex", flex_direction="column",
    )


def container(*children: rx.Component, **props: object) -> rx.Component:
    return rx.box(*children, max_width="1200px", margin_x="auto", padding_x="1.5em", padding_y="2em",
                  width="100%", **props)


def notice_card(icon: str, title: str, text: rx.Var | str, action: rx.Component, *, card_id: str,
                text_id: str | None = None, color: str = "var(--gray-9)", max_width: str = "420px") -> rx.Component:
    """A centred card telling the user why the page cannot show its content, with one way on."""
    return rx.center(
        rx.card(
            rx.vstack(
                rx.icon(icon, size=32, color=color),
                rx.heading(title, size="5", as_="h1"),  # the page's one message, so its title
                rx.text(text, color_scheme="gray", align="center", id=text_id),
                action,
                align="center", spacing="3", padding="1em",
            ),
            size="3", max_width=max_width, width="100%", id=card_id,
        ),
        padding_y="4em", padding_x="1em",
    )
