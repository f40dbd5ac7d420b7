"""Who is signed in, read from the session cookie carried by the websocket handshake."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from http.cookies import CookieError, SimpleCookie
from typing import Any

import reflex as rx
from reflex.event import EventSpec

from marketplace.config import settings
from marketplace.models import User
from marketplace.services import auth, client_address, names, return_paths
from marketplace.services.auth import SESSION_COOKIE
from marketplace.state import blocking
from marketplace.state.browser import error_message, fetch_api

FLASH_KEY = "mp-flash"
# Page states that keep the signed-in user's own lists between visits (the dashboard), each with what empties them:
# a tab's states outlive its page loads, and each page load's hydrate sends them all to whoever uses the tab next.
_USER_LISTS: list[tuple[type[rx.State], Callable[[Any], None]]] = []


def forget_on_user_change(state: type[rx.State], forget: Callable[[Any], None]) -> None:
    """Have `forget(state)` run when the tab's user signs out (`logout`) or another user is found signed in."""
    _USER_LISTS.append((state, forget))


def flash_and_go(title: str, description: str, path: str = "/") -> EventSpec:
    """Show a toast on the next page: the cookie changed, so a full page load must follow."""
    payload = json.dumps({"title": title, "description": description})
    return rx.call_script(
        f"sessionStorage.setItem({json.dumps(FLASH_KEY)}, {json.dumps(payload)});"
        f" window.location.assign({json.dumps(path)})"
    )


def full_page_load(path: str) -> EventSpec:
    """Leave the single-page app: /api routes (sign-in entry, SSO) must be fetched by the browser itself."""
    return rx.call_script(f"window.location.assign({json.dumps(path)})")


def toast_on_load(title: str, description: str, *, error: bool = False) -> EventSpec:
    """A toast from an on_load handler: sent via one browser round trip, once the toaster is mounted."""
    payload = json.dumps({"title": title, "description": description, "error": error})
    return rx.call_script(json.dumps(payload), callback=SessionEvents.show_flash)


@functools.lru_cache(maxsize=1024)
def session_token(cookie_header: str) -> str | None:
    """The session cookie's value in a Cookie header. Every handler that asks who is signed in reads it, and a tab
    sends the same header with each of its events: parsed once per header (`SimpleCookie` is a regex scan)."""
    try:
        jar = SimpleCookie(cookie_header)
    except CookieError:
        return None
    morsel = jar.get(SESSION_COOKIE)
    return morsel.value if morsel else None


class ViewerMixin(rx.State, mixin=True):
    """Who is asking, read from the websocket's cookie and address; holds no fields.

    Page states take this instead of subclassing `SessionState`: Reflex loads a state's whole subtree (and
    pickles what was touched) for each event on it, so every page state under `SessionState` made
    `SessionState.load`, sent on every page, load and deserialize every page's state.
    """

    def _token(self) -> str | None:
        return session_token(self.router.headers.cookie or "")

    def _client_address(self) -> str:
        """The websocket's client as per-address limits count it, by the same rule as the API's requests."""
        return client_address.client_address(peer=self.router.session.client_ip,
                                             forwarded_for=self.router.headers.raw_headers.get("x-forwarded-for"))

    async def viewer(self) -> User | None:
        """The signed-in user as the services see it, on a worker thread (a Redis GET when the answer is kept, see
        `services/session_cache`; else one query). Signed out (no session cookie): None, with no trip to it."""
        token = self._token()
        return await blocking.run(auth.user_for_token, token) if token else None


class SessionState(ViewerMixin, rx.State):
    """The current user, refreshed on every page load.

    Only the states that edit these fields (dashboard, account security, e-mail verification) subclass it; other
    page states read the user with `ViewerMixin` or, for a field, `await self.get_state(SessionState)`.
    """

    checked: bool = False
    user_id: str = ""
    username: str = ""
    email: str = ""
    first_name: str = ""
    last_name: str = ""
    role: str = ""
    is_vendor_approved: bool = False
    email_verified: bool = True  # no banner until the user is known
    pending_email: str = ""
    two_factor_enabled: bool = False
    demo_mode: bool = False
    resending: bool = False

    def _apply(self, user: User | None) -> None:
        """Set what changed only: Reflex sends every field set, equal or not, and this runs on every page."""
        fields: dict[str, str | bool] = {
            "user_id": user.id if user else "",
            "username": user.username if user else "",
            "email": user.email if user else "",
            "first_name": (user.first_name or "") if user else "",
            "last_name": (user.last_name or "") if user else "",
            "role": user.role if user else "",
            "is_vendor_approved": bool(user and user.is_vendor_approved),
            "email_verified": user is None or user.email_verified_at is not None,
            "pending_email": (user.pending_email or "") if user else "",
            "two_factor_enabled": bool(user and user.totp_enabled),
        }
        for name, value in fields.items():
            if getattr(self, name) != value:
                setattr(self, name, value)

    @rx.var
    def signed_in(self) -> bool:
        return self.user_id != ""

    @rx.var
    def display_name(self) -> str:
        return names.display_name(first_name=self.first_name, last_name=self.last_name, username=self.username)

    @rx.var
    def greeting_name(self) -> str:
        """Who 'Welcome back, ...!' addresses, on the home page and the dashboard alike. The fields are read here,
        not inside the rule: Reflex recomputes a var when the fields it reads by name change."""
        return names.display_name(first_name=self.first_name, last_name=self.last_name, username=self.username,
                                  short=True)

    @rx.var
    def initials(self) -> str:
        name = self.display_name
        return name[:1].upper() if name else "?"

    @rx.var
    def needs_confirmation(self) -> bool:
        """The verification banner shows: the address is unconfirmed, or a new one awaits its link."""
        return self.user_id != "" and (not self.email_verified or self.pending_email != "")


class SessionEvents(SessionState):
    """The session's handlers, kept in a leaf: Reflex loads (and pickles back) every substate of the state an
    event is sent to, and the states that edit the session's fields (the dashboard with its lists, account
    security) subclass `SessionState`; an event here loads this, its parents and nothing else."""

    async def _forget_user_lists(self) -> None:
        for state, forget in _USER_LISTS:
            forget(await self.get_state(state))

    @rx.event
    async def load(self) -> None:
        """Every page's first on_load. A toast left by the previous page is shown by the toaster itself
        (`components/flash_toaster.py`). A tab whose user changed (a session that ended, another sign-in)
        forgets the previous user's lists."""
        before = self.user_id
        self._apply(await self.viewer())
        if before and self.user_id != before:
            await self._forget_user_lists()
        if self.demo_mode != settings.demo_enabled:
            self.demo_mode = settings.demo_enabled
        if not self.checked:
            self.checked = True

    @rx.event
    def show_flash(self, raw: str) -> EventSpec | None:
        if not raw:
            return None
        try:
            data = json.loads(raw)
        except (TypeError, ValueError):
            return None
        show = rx.toast.error if data.get("error") else rx.toast
        return show(str(data.get("title", "")), description=str(data.get("description", "")))

    @rx.event
    def redirect_if_signed_in(self, path: str = "/") -> EventSpec | None:
        """Login and sign-up bounce signed-in users on: to their `?next=` page (checked by the caller), else
        home."""
        if self.signed_in:
            return rx.redirect(return_paths.safe_next(path), replace=True)
        return None

    @rx.event
    def resend_verification(self) -> EventSpec | None:
        if self.resending:
            return None
        self.resending = True
        return rx.call_script(fetch_api("POST", "/api/auth/resend-verification"),
                              callback=SessionEvents.verification_resent)

    @rx.event
    def verification_resent(self, result: dict) -> EventSpec:
        self.resending = False
        if result.get("ok"):
            return rx.toast("Confirmation e-mail sent", description=error_message(result))
        return rx.toast.error("Could not send the e-mail", description=error_message(result) or "Please try again.")

    @rx.event
    async def logout(self) -> EventSpec:
        """Sign out; the tab's states forget the user's lists first, or the next page's hydrate would send them
        again."""
        await self._forget_user_lists()
        return rx.call_script(
            "fetch('/api/logout', {method: 'POST', credentials: 'include'})"
            ".finally(() => window.location.assign('/'))"
        )
