"""/admin/settings: the commission rate, the checkout currency with its USD to EUR rate, and guest checkout
(admins only).

Values are read and written through services/platform.py, which validates and normalises them; the commission
rate is stored the way the admin tabs' editor stores it (state/admin/commission.store_rate), and this state turns
the answers into the spec's toasts.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import reflex as rx

from marketplace.models import PlatformSetting, User
from marketplace.services import money, platform
from marketplace.services.errors import DomainError, Forbidden, Invalid, Unauthorized
from marketplace.state import blocking
from marketplace.state.admin.commission import INVALID_VALUE, store_rate
from marketplace.state.admin.page import admin_only
from marketplace.state.display import logged_out_again
from marketplace.state.forms import take_submitted
from marketplace.state.service_calls import Shown, attempt
from marketplace.state.session import ViewerMixin

LOG = logging.getLogger(__name__)

PAYMENT_SAVED = ("Payment settings updated", "Checkout currency and exchange rate have been saved.")
PAYMENT_FAILED = ("Error", "Failed to update payment settings.")
GUEST_ON = ("Guest checkout turned on", "Signed-out visitors can now buy with their e-mail address.")
GUEST_OFF = ("Guest checkout turned off", "Visitors must sign in to buy.")
GUEST_FAILED = ("Error", "Failed to update guest checkout.")
CURRENCIES = ("usd", "eur")


def failure_toast(error: Exception, *, invalid: tuple[str, str], failed: tuple[str, str]) -> tuple[str, str]:
    """A refused value reads as `invalid` with the server's reason; anything else as the generic failure."""
    if isinstance(error, Invalid):
        return invalid[0], error.message or invalid[1]
    return failed


@dataclass(frozen=True)
class SettingsToast:
    """The failures of a settings save, for `service_calls.attempt`: signed out signs in again, not an admin is
    sent away (the handler marks the page denied), a refused value is 'Invalid value' with the server's reason,
    anything else the generic failure (logged when it is not a refusal)."""

    failed: tuple[str, str]
    what: str  # for the log: 'payment settings'

    def shown(self, error: Exception) -> Shown:
        if isinstance(error, Unauthorized):
            return Shown(logged_out_again(), signed_out=True)
        if isinstance(error, Forbidden):
            return Shown(admin_only())
        if not isinstance(error, DomainError):
            LOG.error("%s update failed", self.what, exc_info=error)
        title, description = failure_toast(error, invalid=(INVALID_VALUE[0], ""), failed=self.failed)
        return Shown([rx.toast.error(title, description=description)], description)


def _save_payment(user: User | None, *, rate: str, currency: str) -> tuple[PlatformSetting, PlatformSetting]:
    """The rate first: if it is refused, the currency is left as it was."""
    return (platform.update_setting(actor=user, key=platform.USD_TO_EUR_RATE, value=rate),
            platform.update_setting(actor=user, key=platform.CHECKOUT_CURRENCY, value=currency))


class AdminSettingsState(ViewerMixin, rx.State):
    """The form values and what is stored; reset on every visit."""

    mode: str = "loading"  # loading | denied | ready
    commission_rate: str = ""  # without the percent sign, as typed
    stored_commission: str = ""
    checkout_currency: str = "usd"
    usd_to_eur_rate: str = ""
    stored_currency: str = "usd"
    stored_rate: str = ""
    saving_commission: bool = False
    saving_payment: bool = False
    allow_guest_checkout: bool = False
    saving_guest: bool = False

    @rx.event
    async def on_load(self) -> list[rx.event.EventSpec] | None:
        self.reset()
        try:
            settings = await blocking.run(platform.list_settings, actor=await self.viewer())
        except (Unauthorized, Forbidden):
            self.mode = "denied"
            return admin_only(on_load=True)
        self._show({row.key: row.value for row in settings})
        self.mode = "ready"
        return None

    def _show(self, values: dict[str, str]) -> None:
        self.stored_commission = values.get(platform.COMMISSION_RATE, self.stored_commission)
        self.commission_rate = self.stored_commission.rstrip("%")
        self.stored_currency = values.get(platform.CHECKOUT_CURRENCY, self.stored_currency)
        self.checkout_currency = self.stored_currency
        self.stored_rate = values.get(platform.USD_TO_EUR_RATE, self.stored_rate)
        self.usd_to_eur_rate = self.stored_rate
        if platform.ALLOW_GUEST_CHECKOUT in values:
            self.allow_guest_checkout = values[platform.ALLOW_GUEST_CHECKOUT] == "true"

    @rx.event
    def set_commission_rate(self, value: str) -> None:
        self.commission_rate = value

    @rx.event
    def set_usd_to_eur_rate(self, value: str) -> None:
        self.usd_to_eur_rate = value

    @rx.event
    def set_checkout_currency(self, value: str) -> None:
        if value.lower() in CURRENCIES:
            self.checkout_currency = value.lower()

    def _refused(self, error: Exception) -> list[rx.event.EventSpec] | None:
        if isinstance(error, Unauthorized):
            return logged_out_again()
        if isinstance(error, Forbidden):
            self.mode = "denied"
            return admin_only()
        return None

    @rx.event
    async def save_commission(self, form: dict | None = None) -> AsyncIterator[Any]:
        take_submitted(self, form, {"commissionRate": "commission_rate"})
        if self.saving_commission:
            return
        self.saving_commission = True
        yield
        try:
            stored, toast = await store_rate(await self.viewer(), self.commission_rate)
        except (Unauthorized, Forbidden) as error:
            stored, toast = None, self._refused(error)
        self.saving_commission = False
        if stored is not None:
            self._show({platform.COMMISSION_RATE: stored.value})
        yield toast

    @rx.event
    async def save_payment(self, form: dict | None = None) -> AsyncIterator[Any]:
        take_submitted(self, form, {"usdToEurRate": "usd_to_eur_rate"})
        if self.saving_payment:
            return
        self.saving_payment = True
        yield
        done = await attempt(SettingsToast(PAYMENT_FAILED, "payment settings"), _save_payment, await self.viewer(),
                             rate=self.usd_to_eur_rate, currency=self.checkout_currency)
        self.saving_payment = False
        if done.failed:
            if isinstance(done.error, Forbidden):
                self.mode = "denied"
            yield done.events
            return
        rate, currency = done.value
        self._show({platform.USD_TO_EUR_RATE: rate.value, platform.CHECKOUT_CURRENCY: currency.value})
        yield rx.toast.success(PAYMENT_SAVED[0], description=PAYMENT_SAVED[1])

    @rx.event
    async def save_guest_checkout(self, on: bool) -> AsyncIterator[Any]:
        """The switch saves at once: it is the setting, not a form field."""
        if self.saving_guest:
            return
        self.saving_guest = True
        yield
        done = await attempt(SettingsToast(GUEST_FAILED, "guest checkout setting"), platform.update_setting,
                             actor=await self.viewer(), key=platform.ALLOW_GUEST_CHECKOUT,
                             value="true" if on else "false")
        self.saving_guest = False
        if done.failed:
            if isinstance(done.error, Forbidden):
                self.mode = "denied"
            yield done.events
            return
        self._show({platform.ALLOW_GUEST_CHECKOUT: done.value.value})
        title, description = GUEST_ON if self.allow_guest_checkout else GUEST_OFF
        yield rx.toast.success(title, description=description)

    @rx.var
    def commission_changed(self) -> bool:
        return self.commission_rate.strip() != self.stored_commission.rstrip("%")

    @rx.var
    def payment_changed(self) -> bool:
        return self.checkout_currency != self.stored_currency or self.usd_to_eur_rate.strip() != self.stored_rate

    @rx.var
    def vendor_share(self) -> str:
        return money.vendor_share(self.stored_commission)
