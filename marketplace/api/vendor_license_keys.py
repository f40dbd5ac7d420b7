"""A vendor's own agents' license keys: the list and Disable / Enable. Thin adapters over services/licenses, which
check every permission."""

from __future__ import annotations

from fastapi import APIRouter, Query, Response
from pydantic import TypeAdapter

from marketplace.api.catalog import json_list, total_answer
from marketplace.api.deps import OptionalUser
from marketplace.models.license_views import LicenseActivationPublic, ManagedLicenseKeyPublic
from marketplace.models.licenses import DisableKeyIn
from marketplace.services import licenses

router = APIRouter(prefix="/api/vendor", tags=["vendor"])

KEYS = TypeAdapter(list[ManagedLicenseKeyPublic])
TOTAL = total_answer("keys")


def key_public(view: licenses.KeyView) -> ManagedLicenseKeyPublic:
    return ManagedLicenseKeyPublic(
        id=view.id, key=view.key, status=view.status, disabled=view.disabled,
        disabled_reason=view.disabled_reason or None, agent_id=view.agent_id,
        agent_name=view.agent_name, purchase_id=view.purchase_id, buyer=view.buyer_username,
        buyer_email=view.buyer_email or None, activation_limit=view.activation_limit,
        activation_usage=view.activation_usage, expires_at=view.expires_at, created_at=view.created_at,
        activations=[LicenseActivationPublic(id=a.id, name=a.name, created_at=a.created_at)
                     for a in view.activations])


@router.get("/agents/{agent_id}/license-keys", response_model=list[ManagedLicenseKeyPublic],
                   responses=TOTAL)
def vendor_keys(agent_id: str, user: OptionalUser, limit: int = Query(20), offset: int = Query(0),
                search: str | None = Query(None, description="buyer's username, the key's last 5 characters or the "
                                                              "whole key")
                ) -> Response:
    """One own agent's keys, masked, newest first, paged (X-Total-Count)."""
    rows, total = licenses.vendor_keys(actor=user, agent_id=agent_id, limit=limit, offset=offset, search=search)
    return json_list([key_public(r) for r in rows], KEYS, total)


@router.post("/license-keys/{key_id}/disable", response_model=ManagedLicenseKeyPublic)
def vendor_disable(key_id: str, user: OptionalUser, body: DisableKeyIn | None = None) -> ManagedLicenseKeyPublic:
    """Disable a key of an own agent with `{"reason"}` (400 without), which the buyer reads in My Agents and a
    mail: the buyer's agent stops validating. 409 when already disabled."""
    return key_public(licenses.set_disabled(actor=user, key_id=key_id, disabled=True,
                                            reason=body.reason if body else None))


@router.post("/license-keys/{key_id}/enable", response_model=ManagedLicenseKeyPublic)
def vendor_enable(key_id: str, user: OptionalUser) -> ManagedLicenseKeyPublic:
    """Enable a key disabled before. 409 when it is not disabled."""
    return key_public(licenses.set_disabled(actor=user, key_id=key_id, disabled=False))
