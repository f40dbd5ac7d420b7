"""Top bar and the page frame every page shares."""

from __future__ import annotations

import reflex as rx

from marketplace.components.spinner import page_spinner
from marketplace.state.session import SessionEvents, SessionState, full_page_load


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
                *[rx.menu.item(label, on_click=rx.redirect(href), class_name="nav-menu-item")
                  for label, href in NAV_LINKS],
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
            rx.menu.item("Dashboard", on_click=rx.redirect("/dashboard")),
            rx.cond(
                SessionState.role == "vendor",
                rx.menu.item("Vendor Dashboard", on_click=rx.redirect("/vendor")),
            ),
            rx.cond(
                SessionState.role == "admin",
                rx.menu.item("Admin Panel", on_click=rx.redirect("/admin")),
            ),
            rx.menu.separator(),
            rx.menu.item("Log out", color="red", on_click=SessionEvents.logout),
            align="end",
        ),
    )


def top_bar() -> rx.Component:
    return rx.box(
        rx.hstack(
            _nav_menu(),
            rx.link(
                rx.hstack(rx.text("🤖", size="6"), rx.heading("AgentMarket", size=rx.breakpoints(initial="4", sm="5")),
                          align="center", spacing="2"),
                href="/", underline="none", color_scheme="gray", high_contrast=True,
            ),
            rx.hstack(
                *[_nav_link(label, href) for label, href in NAV_LINKS],
                spacing="5", display=rx.breakpoints(initial="none", sm="flex"),
            ),
            rx.spacer(),
            rx.cond(
                SessionState.checked,
                rx.cond(
                    SessionState.signed_in,
                    _avatar_menu(),
                    rx.hstack(
                        rx.button("Sign In", variant="ghost", on_click=full_page_load("/api/login"),
                                  size=rx.breakpoints(initial="1", sm="2")),
                        rx.button("Get Started", on_click=full_page_load("/api/login"),
                                  size=rx.breakpoints(initial="1", sm="2")),
                        spacing="3", align="center",
                    ),
                ),
            ),
            align="center", spacing=rx.breakpoints(initial="3", md="6"), max_width="1200px", margin_x="auto",
            padding_x=rx.breakpoints(initial="0.75em", sm="1.5em"),
            height="64px",
        ),
        border_bottom="1px solid var(--gray-a5)", background="var(--color-background)",
        position="sticky", top="0", z_index="10",
    )


def _strip(*children: rx.Component, color: str, strip_id: str) -> rx.Component:
    return rx.box(
        rx.hstack(*children, align="center", spacing="2", wrap="wrap", max_width="1200px", margin_x="auto",
                  padding_x=rx.breakpoints(initial="0.75em", sm="1.5em"), padding_y="0.4em"),
        background=f"var(--{color}-3)", border_bottom=f"1px solid var(--{color}-6)", color=f"var(--{color}-11)",
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


def page_frame(content: rx.Component, *, pending: rx.Component | None = None) -> rx.Component:
    """Every page: top bar and banners, then `pending` (a spinner unless the page has its own loading view)
    until the session is known, then the content."""
    return rx.box(
        top_bar(),
        demo_banner(),
        verification_banner(),
        rx.cond(SessionState.checked, content, pending if pending is not None else page_spinner()),
        rx.cond(SessionState.is_hydrated, rx.box(id="hydrated", display="none")),
        min_height="100vh",
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
                rx.heading(title, size="5"),
                rx.text(text, color_scheme="gray", align="center", id=text_id),
                action,
                align="center", spacing="3", padding="1em",
            ),
            size="3", max_width=max_width, width="100%", id=card_id,
        ),
        padding_y="4em", padding_x="1em",
    )
