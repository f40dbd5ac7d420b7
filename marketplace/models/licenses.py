"""License keys: one per purchase, the machines ("instances") a buyer activated it on, and the public license
API's requests and answers (`/api/licenses/*`, camelCase like every route)."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

import pydantic
from sqlalchemy import Column, String
from sqlmodel import Field, SQLModel

from marketplace.models.base import ApiInput, ApiModel, new_id, utcnow

KEY_LENGTH = 23  # XXXXX-XXXXX-XXXXX-XXXXX
INSTANCE_NAME_MAX = 100
DISABLED_REASON_MAX = 500


class LicenseStatus(StrEnum):
    ACTIVE = "active"
    EXPIRED = "expired"  # the subscription's access ended
    DISABLED = "disabled"  # by the agent's vendor or an admin (or a disputed payment)
    REFUNDED = "refunded"


class LicenseKey(SQLModel, table=True):
    """The key of one purchase (`purchases` row: one per buyer and agent). `key_hash` (SHA-256 of the key) is
    what a public API call looks the key up by; `key` is shown to the buyer. Its status is never stored: it is
    read from the purchase by `services.licenses.status` (the access rule), except the vendor's or an admin's
    `disabled_at`. `activation_usage` counts its activations; it only moves by a conditional UPDATE that checks
    the agent's limit, so concurrent activations never exceed it."""

    __tablename__ = "license_keys"

    id: str = Field(default_factory=new_id, primary_key=True, max_length=32)
    purchase_id: str = Field(foreign_key="purchases.id", unique=True, max_length=32, ondelete="CASCADE")
    agent_id: str = Field(foreign_key="agents.id", index=True, max_length=32, ondelete="CASCADE")
    user_id: str = Field(foreign_key="users.id", index=True, max_length=32, ondelete="CASCADE")
    key: str = Field(max_length=KEY_LENGTH)
    key_hash: str = Field(sa_column=Column(String(64), unique=True, nullable=False))
    activation_usage: int = 0
    disabled_at: datetime | None = None
    disabled_reason: str | None = Field(default=None, max_length=DISABLED_REASON_MAX)  # what the buyer reads
    created_at: datetime = Field(default_factory=utcnow)


class LicenseActivation(SQLModel, table=True):
    """One machine a key is activated on; deactivating deletes it (and frees its place under the limit)."""

    __tablename__ = "license_activations"

    id: str = Field(default_factory=new_id, primary_key=True, max_length=32)
    license_key_id: str = Field(foreign_key="license_keys.id", index=True, max_length=32, ondelete="CASCADE")
    name: str = Field(max_length=INSTANCE_NAME_MAX)
    created_at: datetime = Field(default_factory=utcnow)


# --- the public API (`/api/licenses/*`) ---------------------------------------------------------------------


class LicenseKeyOut(ApiModel):
    status: str  # LicenseStatus
    activation_limit: int | None = None  # None: unlimited
    activation_usage: int
    expires_at: datetime | None = None  # a subscription's end of access; None for a licence for good
    agent_id: str


class InstanceOut(ApiModel):
    id: str
    name: str


class ActivateOut(ApiModel):
    activated: bool
    error: str | None = None
    license_key: LicenseKeyOut | None = None
    instance: InstanceOut | None = None


class ValidateOut(ApiModel):
    valid: bool
    error: str | None = None
    license_key: LicenseKeyOut | None = None
    instance: InstanceOut | None = None


class DeactivateOut(ApiModel):
    deactivated: bool
    error: str | None = None
    license_key: LicenseKeyOut | None = None


KEY_INPUT_MAX = 64  # a longer value is no key: 422 before any lookup
ID_INPUT_MAX = 64


class ActivateIn(ApiInput):
    license_key: str = pydantic.Field(max_length=KEY_INPUT_MAX)
    instance_name: str = pydantic.Field(max_length=INSTANCE_NAME_MAX)


class ValidateIn(ApiInput):
    license_key: str = pydantic.Field(max_length=KEY_INPUT_MAX)
    instance_id: str | None = pydantic.Field(default=None, max_length=ID_INPUT_MAX)


class DeactivateIn(ApiInput):
    license_key: str = pydantic.Field(max_length=KEY_INPUT_MAX)
    instance_id: str = pydantic.Field(max_length=ID_INPUT_MAX)


class DisableKeyIn(ApiInput):
    """A vendor's or an admin's Disable: the reason the buyer reads (required; the service says so with a 400)."""

    reason: str | None = pydantic.Field(default=None, max_length=2000)
