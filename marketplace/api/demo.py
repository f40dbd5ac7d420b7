"""Demo-mode helpers: role switching and demo data. They answer 404 when demo mode is off."""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import Field

from marketplace.api.deps import OptionalUser
from marketplace.models import ApiModel, UserPublic
from marketplace.services import demo, users

router = APIRouter(prefix="/api", tags=["demo"])


class RoleIn(ApiModel):
    role: str = Field(max_length=16)


class RoleOut(ApiModel):
    user: UserPublic


class MessageOut(ApiModel):
    message: str


@router.post("/dev/switch-role", response_model=RoleOut)
def switch_role(body: RoleIn, user: OptionalUser) -> RoleOut:
    return RoleOut(user=UserPublic.of(users.switch_role(actor=user, role=body.role)))


@router.post("/admin/init-demo-data", response_model=MessageOut)
def init_demo_data(user: OptionalUser) -> MessageOut:
    demo.init_demo_data(actor=user)
    return MessageOut(message="Demo data initialized")
