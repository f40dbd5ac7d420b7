"""The Promotion codes section, the same on the vendor dashboard (own agents) and in the admin panel (any or all
agents): the list, the create form and Deactivate. Every rule is services/promotions'; this shows its answers
(a refusal under the field it names, or as a toast)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import reflex as rx

from marketplace.models import PromotionDuration, User
from marketplace.services import promotions
from marketplace.state.display import format_day, time_zone
from marketplace.state.forms import FormState, focus_first_error, submitted_checkbox, take_submitted
from marketplace.state.service_calls import Toast, attempt

LOAD_FAILED = "Could not load the promotion codes."
READ_FAILED = Toast(None, LOAD_FAILED, unexpected=True, log="promotion codes unavailable")
SUBMITTED = {
    "code": "code",
    "value": "value",
    "expiresOn": "expires_on",
    "maxRedemptions": "max_redemptions",
    "durationMonths": "duration_months",
}


@dataclass
class CodeRow:
    id: str = ""
    code: str = ""
    off: str = ""  # '25% off, first payment'
    agents: str = ""  # 'All agents' or '2 agents'
    expires: str = ""  # 'Never' or the day
    uses: str = ""  # '3 / 10' or '3'
    first_only: bool = False
    active: bool = True


@dataclass
class AgentOption:
    id: str = ""
    name: str = ""


def code_row(view: promotions.CodeView, *, zone_name: str) -> CodeRow:
    c = view.code
    count = len(view.agent_ids)
    return CodeRow(
        id=c.id,
        code=c.code,
        off=promotions.describe(view),
        agents="All agents" if c.all_agents else f"{count} agent{'s' if count != 1 else ''}",
        expires=format_day(c.expires_at, time_zone(zone_name)) if c.expires_at else "Never",
        uses=f"{view.redemptions} / {c.max_redemptions}" if c.max_redemptions else str(view.redemptions),
        first_only=c.first_purchase_only,
        active=c.active,
    )


def _load(user: User | None, admin: bool, zone_name: str) -> tuple[list[CodeRow], list[AgentOption]]:
    """On a worker thread: the codes as rows, and (a vendor's) the agents its codes may apply to."""
    codes = [code_row(v, zone_name=zone_name) for v in promotions.list_codes(actor=user, admin=admin)]
    agents = [] if admin else [AgentOption(id=i, name=n) for i, n in promotions.pickable_agents(actor=user)]
    return codes, agents


def _create(user: User | None, admin: bool, fields: dict[str, Any]) -> str:
    """On a worker thread: the form's values to a code; its text."""
    return promotions.create_from_form(actor=user, form=promotions.CodeForm(**fields), admin=admin).code.code


class PromotionCodesMixin(FormState, rx.State, mixin=True):
    """Needs `viewer()` and `time_zone` from the area's state it is mixed into; `ADMIN` picks the admin routes'
    rules (any or all agents)."""

    ADMIN: ClassVar[bool] = False
    FORM_FIELDS: ClassVar[dict[str, str]] = {
        "code": "code",
        "value": "value",
        "expires_on": "expiresOn",
        "max_redemptions": "maxRedemptions",
        "duration_months": "durationMonths",
        "agent_text": "agentIds",
    }

    codes_loading: bool = True
    codes_error: str = ""
    code_rows: list[CodeRow] = []
    agent_options: list[AgentOption] = []
    busy: str = ""  # 'create', or the code being deactivated
    # the form
    code: str = ""
    kind: str = promotions.PERCENT
    value: str = ""
    picked: list[str] = []
    agent_text: str = ""  # an admin's agent ids, comma-separated
    all_agents: bool = False
    expires_on: str = ""
    max_redemptions: str = ""
    first_purchase_only: bool = False
    duration: str = PromotionDuration.ONCE
    duration_months: str = ""

    if TYPE_CHECKING:  # given by the area's state this is mixed into (`ViewerMixin.viewer`)

        async def viewer(self) -> User | None: ...

    async def _actor(self) -> User | None:
        """The signed-in user, from the area's state this is mixed into."""
        return await self.viewer()

    @rx.event
    async def load_codes(self) -> AsyncIterator[Any]:
        self.codes_loading, self.codes_error = True, ""
        yield
        done = await attempt(
            READ_FAILED,
            _load,
            await self._actor(),
            self.ADMIN,
            getattr(self, "time_zone", "UTC"),
        )
        self.codes_loading = False
        if done.signed_out:
            yield done.events
            return
        if done.failed:
            self.codes_error, self.code_rows = done.message, []
            return
        self.code_rows, self.agent_options = done.value

    @rx.event
    def set_kind(self, value: str) -> None:
        self.kind = value if value in (promotions.PERCENT, promotions.AMOUNT) else promotions.PERCENT
        self.errors.pop("value", None)

    @rx.event
    def set_duration(self, value: str) -> None:
        self.duration = value if value in tuple(PromotionDuration) else PromotionDuration.ONCE
        self.errors.pop("durationMonths", None)

    @rx.event
    def toggle_agent(self, agent_id: str, checked: bool) -> None:
        picked = [a for a in self.picked if a != agent_id]
        self.picked = [*picked, agent_id] if checked else picked
        self.errors.pop("agentIds", None)

    @rx.event
    def set_all_agents(self, checked: bool) -> None:
        self.all_agents = bool(checked)
        self.errors.pop("agentIds", None)

    @rx.event
    def set_first_purchase_only(self, checked: bool) -> None:
        self.first_purchase_only = bool(checked)

    @rx.event
    async def create_code(self, form: dict | None = None) -> AsyncIterator[Any]:
        take_submitted(self, form, {**SUBMITTED, "agentText": "agent_text"})
        if (ticked := submitted_checkbox(form, "firstPurchaseOnly")) is not None:
            self.first_purchase_only = ticked
        if self.busy:
            return
        self.busy, self.errors = "create", {}
        yield
        agent_ids = [a.strip() for a in self.agent_text.split(",") if a.strip()] if self.ADMIN else list(self.picked)
        fields = dict(
            code=self.code,
            kind=self.kind,
            value=self.value,
            agent_ids=agent_ids,
            all_agents=self.all_agents,
            expires_on=self.expires_on,
            max_redemptions=self.max_redemptions,
            first_purchase_only=self.first_purchase_only,
            duration=self.duration,
            duration_months=self.duration_months,
        )
        done = await attempt(
            Toast(
                "Failed to create promotion code",
                "Please try again.",
                unexpected=True,
                log="promotion code not created",
            ),
            _create,
            await self._actor(),
            self.ADMIN,
            fields,
        )
        self.busy = ""
        if done.failed:
            refusal = done.refusal
            field = (
                {"percentOff": "value", "amountOffCents": "value"}.get(refusal.field or "", refusal.field or "")
                if refusal
                else ""
            )
            if refusal is not None and field in set(self.FORM_FIELDS.values()):
                self.errors = {field: refusal.message}
                yield focus_first_error()
                return
            yield done.events
            return
        made = done.value
        self.code = self.value = self.expires_on = self.max_redemptions = self.duration_months = ""
        self.agent_text, self.picked, self.all_agents, self.first_purchase_only = "", [], False, False
        self.duration = PromotionDuration.ONCE
        yield rx.toast.success("Promotion code created", description=f"{made} can be used at checkout now.")
        async for event in self.load_codes():
            yield event

    @rx.event
    async def deactivate(self, code_id: str) -> AsyncIterator[Any]:
        if self.busy or not code_id:
            return
        self.busy = code_id
        yield
        done = await attempt(
            Toast(
                "Failed to deactivate promotion code",
                "Please try again.",
                unexpected=True,
                log="promotion code not deactivated",
            ),
            promotions.deactivate_code,
            actor=await self._actor(),
            code_id=code_id,
            admin=self.ADMIN,
        )
        self.busy = ""
        if done.failed:
            yield done.events
        else:
            yield rx.toast.success("Promotion code deactivated", description="It can no longer be used at checkout.")
        async for event in self.load_codes():
            yield event
