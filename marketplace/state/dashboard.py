"""/dashboard: purchases, favourites, orders, profile and account actions of the signed-in user.

Everything is read from the services with the user of the session cookie; the browser only sends which
tab, which purchase and the profile form. Lists are kept as small display records built once per load.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar
from zoneinfo import ZoneInfo

import reflex as rx
from reflex.event import EventSpec

from marketplace.models import ApplicationStatus, Order, Role, User
from marketplace.models.commerce import OrderPublic
from marketplace.services import (
    auth,
    billing,
    catalog,
    downloads,
    favorites,
    images,
    licenses,
    money,
    pricing,
    purchases,
    receipts,
    refunds,
    status_labels,
    users,
)
from marketplace.services.vendors import applications as vendors
from marketplace.state import blocking
from marketplace.state.browser import download_js
from marketplace.state.catalog import AgentCard, agent_card
from marketplace.state.changes import assign, reset_changed
from marketplace.state.display import (
    BROWSER_TIME_ZONE_JS,
    format_day,
    format_day_time,
    logged_out_again,
    time_zone,
)
from marketplace.state.forms import FormState, focus_first_error, take_submitted
from marketplace.state.service_calls import Toast, attempt
from marketplace.state.session import SessionState, forget_on_user_change

TABS = ("purchases", "favorites", "orders", "profile", "payment", "account")
# What each visit reads (`_load`) and copies from the session (`_remember_profile`): kept between visits of the
# same user, and set where they changed.
_READS = ("purchases", "orders", "favorites", "agents_owned", "completed_orders", "total_spent", "application_status",
          "application_date", "saved_first_name", "saved_last_name", "saved_email", "saved_pending_email",
          "can_apply")
_PROFILE_FIELDS = {"firstName": "first_name", "lastName": "last_name", "email": "email",
                   "currentPassword": "current_password"}


@dataclass
class ActivationRow:
    id: str
    name: str
    activated_at: str


@dataclass
class PurchaseCard:
    id: str
    agent_id: str
    name: str
    description: str
    image_url: str
    purchased_on: str
    price: str
    has_files: bool
    access_note: str  # why the agent can no longer be used (refunded, ended, disputed); empty while it can
    demo_url: str
    has_order: bool
    split_enabled: bool
    split_label: str
    vendor_amount: str
    platform_fee: str
    original_usd: str  # empty unless paid in another currency
    exchange_rate: str
    split_reason: str
    # A subscription's (all empty or False for a licence): its status, 'Renews on {date}' / 'Ends on {date}',
    # the last day of access (the cancel dialog's date), what the customer may do, and the update-card page.
    subscription_id: str = ""
    subscription_status: str = ""
    subscription_label: str = ""  # 'Active', 'Cancelled' (services/status_labels)
    renewal: str = ""
    access_until: str = ""
    can_cancel: bool = False
    can_resume: bool = False
    past_due: bool = False
    card_update_url: str = ""
    # The purchase's license key, its status (services/licenses), 'n of m activations' and each activation.
    license_key: str = ""
    license_status: str = ""
    license_disabled_reason: str = ""  # why its vendor or an admin disabled the key
    activation_usage: str = ""
    activations: list[ActivationRow] = field(default_factory=list)
    version_label: str = ""  # the agent's current version ('1.4.0')
    new_version: bool = False  # released after the purchase and not downloaded yet: 'New'


def _usage(key: licenses.KeyView) -> str:
    limit = "unlimited" if key.activation_limit is None else str(key.activation_limit)
    return f"{key.activation_usage} of {limit} activations"


@dataclass
class OrderRow:
    id: str
    number: str
    agent_name: str
    placed_at: str
    total: str
    status: str
    status_label: str = ""  # 'Completed', 'Refunded' (services/status_labels)
    refund: str = ""  # services/refunds.refund_marks: 'refundable', 'requested' or nothing
    receipt_number: str = ""  # 'R-000042' once paid (services/receipts); then `receipt_url` opens it
    receipt_url: str = ""
    discount: str = ""  # 'Code SPRING25: -$5.00' when a promotion code lowered this payment


def _renewal(sub: billing.SubscriptionView, day: str, zone: ZoneInfo) -> str:
    if sub.ended_at is not None:
        return f"Ended on {format_day(sub.ended_at, zone)}"
    if sub.past_due:
        return ""  # nothing renews until the card is fixed: the badge and the update-card link say so
    if sub.trialing and sub.trial_end is not None and not sub.cancel_at_period_end:
        return pricing.TRIAL_ENDS.format(date=format_day(sub.trial_end, zone))
    return f"Ends on {day}" if sub.cancel_at_period_end else f"Renews on {day}"


def purchase_card(record: purchases.PurchaseRecord, zone: ZoneInfo,
                  sub: billing.SubscriptionView | None = None, key: licenses.KeyView | None = None) -> PurchaseCard:
    """One My Agents card; the split label and amounts come from the order's own snapshot, the subscription's
    status and dates from its row, the license key's status and activations from the key."""
    agent, order = record.agent, record.order
    day = format_day(sub.current_period_end, zone) if sub and sub.current_period_end else ""
    public = OrderPublic.of(order) if order else None
    foreign = bool(public and order and order.currency.lower() != "usd" and order.original_price_usd_cents
                   and order.exchange_rate)
    return PurchaseCard(
        id=record.purchase.id,
        agent_id=agent.id,
        name=agent.name,
        description=agent.short_description or agent.description,
        image_url=images.displayable_image_url(agent.image_url),
        purchased_on=format_day(record.purchase.purchased_at, zone),
        price=money.amount_label(record.purchase.purchase_price_cents, currency=record.purchase.currency),
        has_files=record.has_files,
        version_label=record.version_label,
        new_version=record.new_version,
        access_note=record.access_note,
        demo_url=agent.demo_url or "",
        has_order=public is not None,
        split_enabled=bool(public and public.commission_split_enabled),
        split_label=money.split_label(order.commission_rate) if order else "",
        vendor_amount=f"{public.vendor_amount} {public.commission_currency}" if public else "",
        platform_fee=f"{public.platform_fee_amount} {public.commission_currency}" if public else "",
        original_usd=money.format_amount(order.original_price_usd_cents, "usd") if foreign and order else "",
        exchange_rate=public.exchange_rate if public else "",
        split_reason=(public.split_block_reason or "") if public else "",
        subscription_id=sub.id if sub else "",
        subscription_status=sub.status.replace("_", " ") if sub else "",
        subscription_label=status_labels.subscription_label(sub.status) if sub else "",
        renewal=_renewal(sub, day, zone) if sub and day else "",
        access_until=day,
        can_cancel=bool(sub and sub.can_cancel),
        can_resume=bool(sub and sub.can_resume),
        past_due=bool(sub and sub.past_due),
        card_update_url=billing.card_update_path(sub.id) if sub else "",
        license_key=key.key if key else "",
        license_status=key.status if key else "",
        license_disabled_reason=key.disabled_reason if key else "",
        activation_usage=_usage(key) if key else "",
        activations=[ActivationRow(id=a.id, name=a.name, activated_at=format_day_time(a.created_at, zone))
                     for a in key.activations] if key else [],
    )


def _purchase_cards(user: User, zone: ZoneInfo) -> list[PurchaseCard]:
    """My Agents' cards, built on the state pool with their reads: with keys and activations, a long list is
    tens of milliseconds of work that would otherwise hold the event loop."""
    records = purchases.list_purchases(actor=user)
    subs = {s.id: s for s in billing.list_subscriptions(actor=user)}
    keys = {k.purchase_id: k for k in licenses.buyer_keys(actor=user)}
    return [purchase_card(r, zone, subs.get(r.purchase.subscription_id or ""), keys.get(r.purchase.id))
            for r in records]


@dataclass(frozen=True)
class _Dashboard:
    purchases: list[PurchaseCard]
    orders: list[OrderRow]
    favorites: list[AgentCard]
    agents_owned: int
    completed_orders: int
    total_spent: str
    application_status: str
    application_date: str


def _application(user: User, zone: ZoneInfo) -> tuple[str, str]:
    """The vendor application's status and day, as the page shows them ('' without one)."""
    application = vendors.latest_application(actor=user)
    return (application.status, format_day(application.created_at, zone)) if application else ("", "")


def _dashboard_reads(user: User, zone: ZoneInfo) -> _Dashboard:
    """Everything the dashboard shows, read and built in one trip to the state pool: each trip is a hand-off
    the event loop pays for, and eight of them made a dashboard visit the page path's dearest step
    (benchmarks/README.md, "Websocket load")."""
    marks = refunds.refund_marks(actor=user)
    orders = purchases.list_orders(actor=user)
    numbers = receipts.receipt_numbers(actor=user, orders=orders)
    owned = catalog.purchased_agent_ids(actor=user)
    summary = purchases.spending_summary(actor=user)
    status, day = _application(user, zone)
    return _Dashboard(
        purchases=_purchase_cards(user, zone),
        orders=[order_row(o, zone, marks.get(o.id, ""), numbers.get(o.id, "")) for o in orders],
        favorites=[agent_card(a, owned) for a in favorites.list_favorites(actor=user).items],
        agents_owned=summary.agents_owned, completed_orders=summary.completed_orders,
        total_spent=money.format_totals(summary.total_spent), application_status=status, application_date=day)


def _dashboard_for(token: str | None, zone: ZoneInfo) -> tuple[User | None, _Dashboard | None]:
    """Who the session cookie says and, signed in, everything the dashboard shows, in one trip to the state pool:
    a trip of its own to ask who is signed in was a second hand-off on every visit."""
    user = auth.user_for_token(token) if token else None
    return user, (_dashboard_reads(user, zone) if user is not None else None)


def order_row(order: Order, zone: ZoneInfo, refund: str = "", receipt_number: str = "") -> OrderRow:
    return OrderRow(
        id=order.id,
        number=order.id[-8:],
        agent_name=order.agent_name,
        placed_at=format_day_time(order.created_at, zone),
        total=money.format_amount(order.total_amount_cents, order.currency),
        status=order.status,
        status_label=status_labels.order_label(order.status),
        refund=refund,
        receipt_number=receipt_number,
        receipt_url=receipts.receipt_path(order.id) if receipt_number else "",
        discount=pricing.code_discount_line(code=order.promotion_code, discount=order.discount_cents,
                                            currency=order.currency),
    )


class DashboardState(FormState, SessionState):
    """The dashboard of the signed-in user; reset on every visit (the tab's state outlives page loads), but for the
    lists its user sees again (`on_load`)."""

    FORM_FIELDS: ClassVar[dict[str, str]] = {f"form_{name}": name for name in _PROFILE_FIELDS.values()}

    tab: str = "purchases"
    loading: bool = True
    time_zone: str = ""  # the browser's, told on the tab's first visit
    purchases: list[PurchaseCard] = []
    favorites: list[AgentCard] = []  # the catalog's card record; `bought` marks 'Already purchased'
    orders: list[OrderRow] = []
    agents_owned: int = 0
    completed_orders: int = 0
    total_spent: str = "$0.00"
    downloading: str = ""  # purchase id while its zip is being fetched
    cancel_target: str = ""  # the subscription whose cancellation waits for the confirmation dialog
    cancel_until: str = ""  # its last day of access, as the dialog says
    changing_subscription: str = ""  # a subscription being cancelled or resumed
    deactivating: str = ""  # the license activation being deactivated
    deactivate_target: str = ""  # the activation whose Deactivate waits for the confirmation dialog
    deactivate_name: str = ""  # its machine's name, as the dialog says
    # profile
    editing: bool = False
    saving: bool = False
    form_first_name: str = ""
    form_last_name: str = ""
    form_email: str = ""
    form_current_password: str = ""
    # The profile as saved, copied from `SessionState` when the form opens or is saved: computed vars here read
    # these, never the session's fields, or every session event would load this state (with its lists) too.
    saved_first_name: str = ""
    saved_last_name: str = ""
    saved_email: str = ""
    saved_pending_email: str = ""
    # vendor application
    can_apply: bool = False
    applying: bool = False
    application_status: str = ""
    application_date: str = ""
    # The user whose lists and figures (`_READS`) the fields hold: the tab's user while they are kept.
    _lists_of: str = ""

    @rx.var
    def profile_changed(self) -> bool:
        return (self.form_first_name, self.form_last_name, self.form_email) != (
            self.saved_first_name, self.saved_last_name, self.saved_email)

    @rx.event
    async def on_load(self) -> AsyncIterator[EventSpec | None]:
        """A visit: the page shows it is loading, then what the reads found. The lists a visit shows again are
        kept, and `_load` sets only what changed: Reflex sends every field set, and re-sending each list twice
        per visit (emptied, then filled) was a fifth of a visit's CPU (benchmarks/README.md, issue 35). A tab
        whose user is no longer the lists' owner (signed out, or another user signed in) empties them here."""
        mine = self.signed_in and self._lists_of == self.user_id
        reset_changed(self, keep=("time_zone", "_lists_of", *_READS) if mine else ("time_zone",))
        tab = self.router.url.query_parameters.get("tab", "")
        assign(self, tab=tab if tab in TABS else "purchases")
        if not self.signed_in:
            self.loading = False
            return
        if not self.time_zone:  # the tab's first visit: the browser tells its time zone
            yield rx.call_script(BROWSER_TIME_ZONE_JS, callback=DashboardState.load_data)
            return
        yield None  # the page shows it is loading, with no round trip for the zone this tab told before
        await self._load_data(self.time_zone)

    @rx.event
    async def load_data(self, zone_name: str) -> None:
        await self._load_data(zone_name)

    async def _load_data(self, zone_name: str) -> None:
        assign(self, time_zone=time_zone(zone_name).key)
        user, d = await blocking.run(_dashboard_for, self._token(), time_zone(self.time_zone))
        if user is None or d is None:
            self._apply(None)
            reset_changed(self, keep=("time_zone", "tab"))
        else:
            self._show(user, d)
        self._remember_profile()
        self.loading = False

    def _show(self, user: User, d: _Dashboard) -> None:
        if self._lists_of != user.id:
            self._lists_of = user.id
        assign(self, purchases=d.purchases, orders=d.orders, favorites=d.favorites, agents_owned=d.agents_owned,
               completed_orders=d.completed_orders, total_spent=d.total_spent,
               application_status=d.application_status, application_date=d.application_date)

    async def _load_purchases(self, user: User) -> None:
        assign(self, purchases=await blocking.run(_purchase_cards, user, time_zone(self.time_zone)))

    async def _load_application(self, user: User) -> None:
        status, day = await blocking.run(_application, user, time_zone(self.time_zone))
        assign(self, application_status=status, application_date=day)

    @rx.event
    def set_tab(self, tab: str) -> None:
        if tab in TABS:
            self.tab = tab

    def _forget_lists(self) -> None:
        """Signed out, or another user found in the tab (`SessionEvents`): nothing of the lists stays."""
        reset_changed(self, keep=("time_zone",))

    # --- downloads ---------------------------------------------------------------------------------------

    @rx.event
    def download(self, purchase_id: str) -> EventSpec | None:
        card = next((p for p in self.purchases if p.id == purchase_id), None)
        if card is None or self.downloading:
            return None
        if not card.has_files:
            return rx.toast.error("No file available", description="This agent doesn't have any downloadable files.")
        self.downloading = purchase_id
        return rx.call_script(download_js(catalog.download_url(card.agent_id), downloads.archive_name(card.name)),
                              callback=DashboardState.downloaded)

    @rx.event
    def downloaded(self, result: dict[str, Any]) -> EventSpec | list[EventSpec]:
        card = next((p for p in self.purchases if p.id == self.downloading), None)
        self.downloading = ""
        if result.get("ok"):
            if card is not None and card.new_version:  # downloaded: no longer 'New'
                self.purchases = [replace(p, new_version=False) if p.id == card.id else p
                                  for p in self.purchases]
            return rx.toast("Download started", description=f"Downloading {card.name if card else 'agent'} files...")
        status = result.get("status")
        if status == 401:
            return logged_out_again()
        refusals: dict[object, str] = {403: downloads.NO_ACCESS, 404: downloads.NOT_FOUND}
        description = refusals.get(
            status, "Failed to download agent files." if status == 0 else "Failed to download file.")
        return rx.toast.error("Download failed", description=description)

    # --- license keys ------------------------------------------------------------------------------------

    @rx.event
    def copy_key(self, key: str) -> list[EventSpec]:
        return [rx.set_clipboard(key), rx.toast("License key copied", description="Paste it into your agent.")]

    @rx.event
    async def refresh_purchases(self) -> None:
        """My Agents again (the page regained focus, or its short poll): a machine the agent activated since
        shows without a reload."""
        if self.loading or self.deactivating or not self.purchases:
            return
        user = await self.viewer()
        if user is not None:
            await self._load_purchases(user)

    @rx.event
    def ask_deactivate(self, instance_id: str, name: str) -> None:
        """Deactivate asks first: the machine's agent stops working there."""
        if instance_id and not self.deactivating:
            self.deactivate_target, self.deactivate_name = instance_id, name

    @rx.event
    def deactivate_dialog_changed(self, is_open: bool) -> None:
        if not is_open:
            self.deactivate_target = self.deactivate_name = ""

    @rx.event
    async def confirm_deactivate(self) -> AsyncIterator[Any]:
        instance_id, self.deactivate_target, self.deactivate_name = self.deactivate_target, "", ""
        async for step in self._deactivate(instance_id):
            yield step

    @rx.event
    async def deactivate_instance(self, instance_id: str) -> AsyncIterator[Any]:
        async for step in self._deactivate(instance_id):
            yield step

    async def _deactivate(self, instance_id: str) -> AsyncIterator[Any]:
        if not instance_id or self.deactivating:
            return
        self.deactivating = instance_id
        yield
        user = await self.viewer()
        done = await attempt(Toast("Not deactivated"), licenses.deactivate_instance, actor=user,
                             instance_id=instance_id)
        if done.failed:
            self.deactivating = ""
            yield done.events
            return
        await self._load_purchases(user)  # type: ignore[arg-type]  # a None user failed the call above
        self.deactivating = ""
        yield rx.toast("Instance deactivated", description="Its place can be used on another machine.")

    # --- subscriptions -----------------------------------------------------------------------------------

    @rx.event
    def ask_cancel(self, subscription_id: str) -> None:
        card = next((p for p in self.purchases if p.subscription_id == subscription_id and p.can_cancel), None)
        if card is not None:
            self.cancel_target, self.cancel_until = card.subscription_id, card.access_until

    @rx.event
    def keep_subscription(self) -> None:
        self.cancel_target, self.cancel_until = "", ""

    @rx.event
    def cancel_dialog_changed(self, is_open: bool) -> None:
        if not is_open:
            self.cancel_target, self.cancel_until = "", ""

    @rx.event
    async def confirm_cancel(self) -> AsyncIterator[Any]:
        subscription_id = self.cancel_target
        self.cancel_target = ""
        async for step in self._change_subscription(subscription_id, cancel=True):
            yield step

    @rx.event
    async def resume_subscription(self, subscription_id: str) -> AsyncIterator[Any]:
        async for step in self._change_subscription(subscription_id, cancel=False):
            yield step

    async def _change_subscription(self, subscription_id: str, *, cancel: bool) -> AsyncIterator[Any]:
        if not subscription_id or self.changing_subscription:
            return
        self.changing_subscription = subscription_id
        yield
        user = await self.viewer()
        service = billing.cancel_subscription if cancel else billing.resume_subscription
        done = await attempt(Toast("Subscription not changed"), service, actor=user, subscription_id=subscription_id)
        if done.failed:
            self.changing_subscription = ""
            yield done.events
            return
        view = done.value
        await self._load_purchases(user)  # type: ignore[arg-type]  # a None user failed the call above
        self.changing_subscription = ""
        day = format_day(view.current_period_end, time_zone(self.time_zone)) if view.current_period_end else ""
        if cancel:
            yield rx.toast("Subscription cancelled", description=f"You keep access until {day}.")
        else:
            yield rx.toast("Subscription resumed", description=f"Renews on {day}.")

    # --- profile -----------------------------------------------------------------------------------------

    def _remember_profile(self) -> None:
        assign(self, saved_first_name=self.first_name, saved_last_name=self.last_name, saved_email=self.email,
               saved_pending_email=self.pending_email, can_apply=self.role == Role.USER)

    @rx.event
    def start_editing(self) -> None:
        self._remember_profile()
        self.form_first_name, self.form_last_name, self.form_email = self.first_name, self.last_name, self.email
        self.form_current_password = ""
        self.errors = {}
        self.editing = True

    @rx.event
    def cancel_editing(self) -> None:
        self.form_first_name, self.form_last_name, self.form_email = self.first_name, self.last_name, self.email
        self.form_current_password = ""
        self.errors = {}
        self.editing = False

    @rx.var
    def email_changing(self) -> bool:
        typed = self.form_email.strip().lower()
        return typed not in (self.saved_email, self.saved_pending_email)

    def _profile_errors(self) -> dict[str, str]:
        errors = users.profile_errors(first_name=self.form_first_name, last_name=self.form_last_name,
                                      email=self.form_email)
        if self.email_changing and not self.form_current_password:
            errors["currentPassword"] = "Enter your current password to change your e-mail"
        return {_PROFILE_FIELDS[field]: message for field, message in errors.items()}

    @rx.event
    async def save_profile(self, form: dict | None = None) -> AsyncIterator[Any]:
        take_submitted(self, form, {name: f"form_{name}" for name in _PROFILE_FIELDS.values()})
        if self.saving or not self.profile_changed:
            return
        self.errors = self._profile_errors()
        if self.errors:
            yield focus_first_error()
            return
        self.saving = True
        yield
        password = self.form_current_password if self.email_changing else None
        self.form_current_password = ""
        done = await attempt(
            Toast("Update Failed", "Failed to update profile"), users.update_profile, actor=await self.viewer(),
            first_name=self.form_first_name, last_name=self.form_last_name, email=self.form_email,
            current_password=password, keep_token=self._token(), address=self._client_address())
        if done.failed:
            self.saving = False
            if (refusal := done.refusal) and (field := _PROFILE_FIELDS.get(refusal.field or "")):
                self.errors = {field: refusal.message}
                yield focus_first_error()
            yield done.events
            return
        user = done.value
        self._apply(user)
        self._remember_profile()
        self.saving = False
        self.editing = False
        if user.pending_email:
            yield rx.toast("Profile Updated", description=f"We sent a confirmation link to {user.pending_email}. "
                                                          "Your e-mail changes once you open it.")
            return
        yield rx.toast("Profile Updated", description="Your profile has been successfully updated.")

    # --- vendor application ------------------------------------------------------------------------------

    @rx.event
    async def apply_as_vendor(self) -> AsyncIterator[Any]:
        if self.applying or self.application_status == ApplicationStatus.PENDING:
            return
        self.applying = True
        yield
        user = await self.viewer()
        done = await attempt(Toast("Application Failed", "Failed to submit vendor application"),
                             vendors.apply_with_profile, actor=user)
        if done.failed:
            self.applying = False
            yield done.events
            return
        if user is not None:  # the service refused a signed-out user above
            await self._load_application(user)
        self.applying = False
        yield rx.toast("Application Submitted", description="Your vendor application has been submitted for review.")


forget_on_user_change(DashboardState, DashboardState._forget_lists)
