"""The admin's Disable / Enable of any license key: the admin routes and tab take only admins (services/licenses
`set_disabled` also lets the agent's vendor, through the vendor's own routes)."""

from __future__ import annotations

from marketplace.models import User
from marketplace.services import licenses
from marketplace.services.permissions import require_admin


def set_disabled(*, actor: User | None, key_id: str, disabled: bool, reason: object = None) -> licenses.KeyView:
    """One conditional write, audited, the buyer told (services/licenses/manage.py: a Disable needs a `reason`);
    403 for anyone but an admin."""
    admin = require_admin(actor)
    return licenses.set_disabled(actor=admin, key_id=key_id, disabled=disabled, reason=reason)
