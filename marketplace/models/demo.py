"""API schemas of the demo-mode routes: the role switcher and the dev mailbox."""

from __future__ import annotations

from pydantic import Field

from marketplace.models.base import ApiInput, ApiModel
from marketplace.models.user import UserPublic


class RoleIn(ApiInput):
    role: str = Field(max_length=16)


class RoleOut(ApiModel):
    user: UserPublic


class CaughtMailOut(ApiModel):
    to: str
    subject: str
    text: str
    links: list[str]
    received_at: str
