"""Changes people make to keys: a vendor (of the key's agent) or an admin disables or enables one; a buyer frees
one of their activations."""

from __future__ import annotations

from sqlmodel import Session, select

from marketplace.db import session_scope
from marketplace.models import Agent, LicenseActivation, LicenseKey, Role, User
from marketplace.models.base import utcnow
from marketplace.models.licenses import DISABLED_REASON_MAX
from marketplace.services import audit, decisions, mail, mail_texts, names
from marketplace.services.errors import Forbidden, NotFound
from marketplace.services.licenses import public
from marketplace.services.licenses.reads import NOT_YOUR_AGENT, KeyView, key_view
from marketplace.services.permissions import require_user
from marketplace.services.text import required_text

KEY_NOT_FOUND = "License key not found"
ALREADY_DISABLED = "This license key is already disabled"
NOT_DISABLED = "This license key is not disabled"
REASON_REQUIRED = "Please give a reason for disabling this key: the buyer reads it"
REASON_TOO_LONG = f"The reason must be at most {DISABLED_REASON_MAX} characters"
ID_MAX = 64


def _clean_reason(value: object) -> str:
    """The reason a Disable gives (the buyer reads it in My Agents and a mail): required, trimmed, bounded."""
    return required_text(value, field="reason", label="Reason", limit=DISABLED_REASON_MAX, missing=REASON_REQUIRED,
                         too_long=REASON_TOO_LONG)


def set_disabled(*, actor: User | None, key_id: str, disabled: bool, reason: object = None) -> KeyView:
    """Disable (or enable again) a key: by the vendor of its agent or an admin. A Disable needs a `reason`,
    which the buyer reads (`Invalid` without one). One conditional write decides (`disabled_at IS NULL` to
    disable, `IS NOT NULL` to enable), so of two requests at once one wins and the other gets `Conflict`; the
    audit entry and the buyer's mail are written in the same transaction. Returns the key, masked."""
    user = require_user(actor)
    if not isinstance(key_id, str) or not key_id or len(key_id) > ID_MAX:
        raise NotFound(KEY_NOT_FOUND)
    with session_scope() as session:
        found = session.exec(select(LicenseKey.agent_id, Agent.vendor_id).join(Agent, Agent.id == LicenseKey.agent_id)
                             .where(LicenseKey.id == key_id)).first()
        if found is None:
            raise NotFound(KEY_NOT_FOUND)
        agent_id, vendor_id = found
        if user.role != Role.ADMIN and (vendor_id != user.id or not user.is_vendor_approved):
            raise Forbidden(NOT_YOUR_AGENT)
        why = _clean_reason(reason) if disabled else None
        if disabled:
            decisions.claim(session, LicenseKey, LicenseKey.id == key_id, LicenseKey.disabled_at.is_(None),
                            values={"disabled_at": utcnow(), "disabled_reason": why}, conflict=ALREADY_DISABLED)
        else:
            decisions.claim(session, LicenseKey, LicenseKey.id == key_id, LicenseKey.disabled_at.is_not(None),
                            values={"disabled_at": None, "disabled_reason": None}, conflict=NOT_DISABLED)
        audit.record(session, actor=user, action="license.disable" if disabled else "license.enable",
                     target_type="license_key", target_id=key_id,
                     details={"agentId": agent_id, **({"reason": why} if disabled else {})})
        _tell_buyer(session, key_id=key_id, reason=why)
        view = key_view(session, key_id=key_id, masked=True)
    assert view is not None  # the row was just updated in this transaction
    return view


def _tell_buyer(session: Session, *, key_id: str, reason: str | None) -> None:
    """The buyer's mail (outbox, this transaction): disabled with the reason (`reason`), or working again."""
    found = session.exec(select(User, Agent.name).join(LicenseKey, LicenseKey.user_id == User.id)
                         .join(Agent, Agent.id == LicenseKey.agent_id).where(LicenseKey.id == key_id)).first()
    if found is None or found[0].deleted_at is not None or not found[0].email:
        return
    buyer, agent_name = found
    name = names.greeting_name(buyer)
    mail.send_after_commit(session, mail_texts.license_disabled(to=buyer.email, name=name, agent_name=agent_name,
                                                                reason=reason) if reason is not None
                           else mail_texts.license_enabled(to=buyer.email, name=name, agent_name=agent_name))


def deactivate_instance(*, actor: User | None, instance_id: str) -> None:
    """The buyer frees one machine of their own key (My Agents' Deactivate); someone else's, or one already
    gone, is `NotFound`."""
    buyer = require_user(actor)
    if not isinstance(instance_id, str) or not instance_id or len(instance_id) > ID_MAX:
        raise NotFound(public.INSTANCE_NOT_FOUND)
    with session_scope() as session:
        key_id = session.exec(select(LicenseActivation.license_key_id)
                              .join(LicenseKey, LicenseKey.id == LicenseActivation.license_key_id)
                              .where(LicenseActivation.id == instance_id, LicenseKey.user_id == buyer.id)).first()
        if key_id is None or not public.release(session, key_id=key_id, instance_id=instance_id):
            raise NotFound(public.INSTANCE_NOT_FOUND)
