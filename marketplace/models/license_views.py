"""API schemas of the key-management lists: a vendor's agent's keys and the admin's list of all keys (masked but
for the last five characters; camelCase on the wire)."""

from __future__ import annotations

from datetime import datetime

from marketplace.models.base import ApiModel


class LicenseActivationPublic(ApiModel):
    id: str
    name: str
    created_at: datetime


class ManagedLicenseKeyPublic(ApiModel):
    """A key as its agent's vendor or an admin sees it. `disabled`: turned off by a vendor or an admin (Enable
    undoes it); `status` may also be 'disabled' while a disputed payment suspends the purchase."""

    id: str
    key: str  # masked: XXXXX-XXXXX-XXXXX-7KQ2M
    status: str  # LicenseStatus: active | expired | disabled | refunded
    disabled: bool
    disabled_reason: str | None = None  # why (the buyer reads it), while disabled
    agent_id: str
    agent_name: str
    purchase_id: str
    buyer: str  # the buyer's username
    buyer_email: str | None = None  # admins only
    activation_limit: int | None = None  # None: unlimited
    activation_usage: int
    expires_at: datetime | None = None  # a subscription's end of access; None for a licence for good
    created_at: datetime
    activations: list[LicenseActivationPublic]
