"""How dates and the signed-out-again case look in the browser: shared by the account pages' states."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import reflex as rx
from reflex.event import EventSpec

from marketplace.state.session import toast_on_load

# The browser's IANA time zone, so dates read as the user's local time (the server only knows UTC).
BROWSER_TIME_ZONE_JS = "Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC'"


def time_zone(name: object) -> ZoneInfo:
    """The browser's zone, or UTC when it sent nothing usable."""
    if isinstance(name, str) and 0 < len(name) <= 64:
        try:
            return ZoneInfo(name)
        except (ZoneInfoNotFoundError, ValueError):
            pass
    return ZoneInfo("UTC")


def _local(moment: datetime, zone: ZoneInfo) -> datetime:
    # SQLite hands back naive datetimes; every stored timestamp is UTC.
    aware = moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
    return aware.astimezone(zone)


def format_day(moment: datetime, zone: ZoneInfo) -> str:
    """'Jan 5, 2025'."""
    local = _local(moment, zone)
    return f"{local:%b} {local.day}, {local.year}"


def format_day_time(moment: datetime, zone: ZoneInfo) -> str:
    """'Jan 5, 2025 • 3:04 PM'."""
    local = _local(moment, zone)
    hour = local.hour % 12 or 12
    return f"{format_day(local, zone)} • {hour}:{local:%M} {'AM' if local.hour < 12 else 'PM'}"


LOGGED_OUT_TITLE = "Unauthorized"
LOGGED_OUT_MESSAGE = "You are logged out. Logging in again..."
# After a refusal's notice, to sign in (again, or as someone else): a full page load half a second later.
REDIRECT_TO_SIGN_IN = "setTimeout(() => window.location.assign('/api/login'), 500)"


def logged_out_again(*, on_load: bool = False) -> list[EventSpec]:
    """The session ended (or never was): say so, then sign in again after 500 ms. From an on_load handler the
    toast goes through one browser round trip, once the toaster is mounted."""
    toast = (toast_on_load(LOGGED_OUT_TITLE, LOGGED_OUT_MESSAGE, error=True) if on_load
             else rx.toast.error(LOGGED_OUT_TITLE, description=LOGGED_OUT_MESSAGE))
    return [toast, rx.call_script(REDIRECT_TO_SIGN_IN)]
