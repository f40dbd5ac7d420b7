"""Platform-wide settings kept as key/value rows (commission rate, checkout currency...), and the settings
routes' request and answer."""

from __future__ import annotations

from datetime import datetime

import pydantic
from sqlmodel import Field, SQLModel

from marketplace.models.base import ApiInput, ApiModel, utcnow


class PlatformSetting(SQLModel, table=True):
    __tablename__ = "platform_settings"

    key: str = Field(primary_key=True, max_length=64)
    value: str = Field(max_length=500)
    description: str = Field(default="", max_length=500)
    updated_at: datetime = Field(default_factory=utcnow)


class PlatformSettingPublic(ApiModel):
    """A setting as `/api/admin/settings` shows it: {key, value, description, updatedAt}."""

    key: str
    value: str
    description: str
    updated_at: datetime


class SettingIn(ApiInput):
    value: str = pydantic.Field(max_length=64)
    description: str | None = pydantic.Field(default=None, max_length=500)
