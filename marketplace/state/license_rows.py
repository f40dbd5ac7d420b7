"""A license key as the vendor's and the admin's key lists show it (services/licenses KeyView, in words)."""

from __future__ import annotations

from dataclasses import dataclass
from zoneinfo import ZoneInfo

from marketplace.services import licenses
from marketplace.state.display import format_day, format_day_time

STATUS_LABELS = {"active": "Active", "expired": "Expired", "disabled": "Disabled", "refunded": "Refunded"}


@dataclass
class KeyRow:
    id: str = ""
    key: str = ""  # masked but for its last five characters
    status: str = ""  # LicenseStatus
    status_label: str = ""
    disabled: bool = False  # by a vendor or an admin: Enable is offered (a suspended purchase is not)
    disabled_reason: str = ""  # the reason they gave
    agent_id: str = ""
    agent_name: str = ""
    buyer: str = ""
    buyer_email: str = ""  # admins only
    usage: str = ""  # "1 of 3", "2 of unlimited"
    activations: str = ""  # each machine: "name (Jan 5, 2025 • 3:04 PM)"
    expires: str = ""
    created: str = ""


def key_row(view: licenses.KeyView, zone: ZoneInfo) -> KeyRow:
    limit = "unlimited" if view.activation_limit is None else str(view.activation_limit)
    return KeyRow(
        id=view.id, key=view.key, status=view.status, status_label=STATUS_LABELS.get(view.status, view.status),
        disabled=view.disabled, disabled_reason=view.disabled_reason,
        agent_id=view.agent_id, agent_name=view.agent_name, buyer=view.buyer_username,
        buyer_email=view.buyer_email, usage=f"{view.activation_usage} of {limit}",
        activations=", ".join(f"{a.name} ({format_day_time(a.created_at, zone)})" for a in view.activations),
        expires=format_day(view.expires_at, zone) if view.expires_at else "", created=format_day(view.created_at, zone))
