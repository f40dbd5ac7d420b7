"""Admin license keys: every key (masked) with search and paging, Disable / Enable (admin only)."""

from __future__ import annotations

from fastapi import APIRouter, Query, Response

from marketplace.api.catalog import json_list
from marketplace.api.deps import OptionalUser
from marketplace.api.vendor_license_keys import KEYS, TOTAL, key_public
from marketplace.models.license_views import ManagedLicenseKeyPublic
from marketplace.models.licenses import DisableKeyIn
from marketplace.services import license_admin, licenses

router = APIRouter(prefix="/api/admin", tags=["admin"])


@router.get("/license-keys", response_model=list[ManagedLicenseKeyPublic], responses=TOTAL)
def admin_keys(user: OptionalUser, limit: int = Query(20), offset: int = Query(0),
               search: str | None = Query(None, description="buyer's username or e-mail, agent name, the key's "
                                                             "last 5 characters or the whole key (matched by its "
                                                             "hash; shown masked)")) -> Response:
    """Every key, masked, newest first, paged (X-Total-Count); admin only."""
    rows, total = licenses.admin_keys(actor=user, limit=limit, offset=offset, search=search)
    return json_list([key_public(r) for r in rows], KEYS, total)


@router.post("/license-keys/{key_id}/disable", response_model=ManagedLicenseKeyPublic)
def admin_disable(key_id: str, user: OptionalUser, body: DisableKeyIn | None = None) -> ManagedLicenseKeyPublic:
    """Disable any key with `{"reason"}` (400 without), which the buyer reads in My Agents and a mail; audited.
    409 when already disabled."""
    return key_public(license_admin.set_disabled(actor=user, key_id=key_id, disabled=True,
                                                 reason=body.reason if body else None))


@router.post("/license-keys/{key_id}/enable", response_model=ManagedLicenseKeyPublic)
def admin_enable(key_id: str, user: OptionalUser) -> ManagedLicenseKeyPublic:
    """Enable a key disabled before; audited. 409 when it is not disabled."""
    return key_public(license_admin.set_disabled(actor=user, key_id=key_id, disabled=False))
