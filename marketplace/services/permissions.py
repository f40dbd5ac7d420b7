"""Role checks shared by every service: signed in, vendor, admin."""

from __future__ import annotations

from marketplace.models import Role, User
from marketplace.services.errors import Forbidden, Unauthorized


def require_user(actor: User | None) -> User:
    if actor is None or actor.deleted_at is not None:
        raise Unauthorized("Unauthorized")
    return actor


def require_vendor(actor: User | None) -> User:
    """An approved vendor (admins may act as vendors too)."""
    user = require_user(actor)
    if user.role == Role.ADMIN:
        return user
    if user.role != Role.VENDOR or not user.is_vendor_approved:
        raise Forbidden("Vendor access required")
    return user


def require_admin(actor: User | None) -> User:
    user = require_user(actor)
    if user.role != Role.ADMIN:
        raise Forbidden("Admin access required")
    return user
