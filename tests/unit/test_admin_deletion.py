"""Admin deletes: soft, sessions end, sign-in refused, a vendor's agents leave the catalogue, money trail stays."""

from __future__ import annotations

import io
import threading
import zipfile

import pytest
from sqlalchemy import func
from sqlmodel import select

from marketplace import db
from marketplace.models import (
    Agent,
    AgentStatus,
    ApplicationStatus,
    Order,
    Purchase,
    Role,
    User,
    UserSession,
    VendorApplication,
)
from marketplace.services import auth, downloads
from marketplace.services.admin import applications, deletion, moderation
from marketplace.services.catalog import visibility
from marketplace.services.errors import Conflict, Forbidden, NotFound, Unauthorized
from tests import factories as f


def _get(model, key):
    with db.session_scope() as session:
        return session.get(model, key)


def _download(buyer: User, agent: Agent) -> bytes:
    """The first file of the zip the buyer gets."""
    archive = downloads.agent_archive(actor=buyer, agent_id=agent.id)
    with zipfile.ZipFile(io.BytesIO(b"".join(archive.chunks))) as z:
        return z.read(z.namelist()[0])


def _count(model, *where) -> int:
    with db.session_scope() as session:
        return session.exec(select(func.count()).select_from(model).where(*where)).one()


@pytest.mark.parametrize("role", [None, Role.USER, Role.VENDOR])
def test_only_admins_delete(role):
    actor = f.make_user(role=role) if role else None
    victim, agent = f.make_user(), f.make_agent()
    expected = Unauthorized if role is None else Forbidden
    with pytest.raises(expected):
        deletion.delete_user(actor=actor, user_id=victim.id)
    with pytest.raises(expected):
        deletion.delete_agent(actor=actor, agent_id=agent.id)
    assert _get(User, victim.id).deleted_at is None and _get(Agent, agent.id).deleted_at is None
    assert f.audit_actions() == []


def test_a_deleted_admin_cannot_act():
    admin = f.make_admin()
    admin.deleted_at = f.ago(minutes=1)
    with pytest.raises(Unauthorized):
        deletion.delete_user(actor=admin, user_id=f.make_user().id)


def test_deleting_a_customer_keeps_its_orders_and_ends_its_sessions():
    admin, buyer = f.make_admin(), f.make_user("gone", first_name="Gone")
    agent = f.make_agent(f.make_vendor())
    purchase = f.make_purchase(buyer, agent)
    token = auth.create_session(user=buyer)
    assert auth.user_for_token(token).id == buyer.id

    deletion.delete_user(actor=admin, user_id=buyer.id)

    assert _get(User, buyer.id).deleted_at is not None
    assert auth.user_for_token(token) is None
    assert _count(UserSession, UserSession.user_id == buyer.id) == 0
    with pytest.raises(Unauthorized, match="Invalid username or password"):
        auth.authenticate(identifier="gone", password=f.PASSWORD, two_factor_code=None, address="127.0.0.1")
    assert _get(Purchase, purchase.id) is not None
    order = _get(Order, purchase.order_id)
    assert (order.user_id, order.total_amount_cents, order.agent_id) == (buyer.id, agent.price_cents, agent.id)
    assert f.audit_actions() == [("user.delete", "user", buyer.id)]


def test_deleting_a_vendor_removes_its_agents_from_sale_but_buyers_keep_them():
    admin, vendor, other = f.make_admin(), f.make_vendor(), f.make_vendor()
    live, pending = f.make_agent(vendor), f.make_agent(vendor, status=AgentStatus.PENDING, files=1)
    untouched = f.make_agent(other)
    f.store_agent_file(live, b"agent code")
    buyer = f.make_user()
    f.make_purchase(buyer, live)
    sale = f.make_order(live, buyer, commission_rate="20")

    deletion.delete_user(actor=admin, user_id=vendor.id)

    assert _get(Agent, live.id).deleted_at is not None and _get(Agent, pending.id).deleted_at is not None
    assert _get(Agent, untouched.id).deleted_at is None
    with db.session_scope() as session, pytest.raises(NotFound):
        visibility.visible_agent(session, agent_id=live.id, actor=None)
    assert [i.agent_id for i in moderation.list_pending(actor=admin)[0]] == []
    # The money trail and the buyer's copy stay.
    kept = _get(Order, sale.id)
    assert (kept.vendor_id, kept.platform_fee_cents, kept.vendor_amount_cents) == (
        vendor.id, sale.platform_fee_cents, sale.vendor_amount_cents)
    assert _download(buyer, live) == b"agent code"
    assert _count(Purchase, Purchase.agent_id == live.id) == 1
    assert f.audit_actions() == [("user.delete", "user", vendor.id)]


def test_deleting_an_applicant_closes_its_pending_application():
    admin, applicant = f.make_admin(), f.make_user()
    application = f.make_application(applicant)
    deletion.delete_user(actor=admin, user_id=applicant.id)
    closed = _get(VendorApplication, application.id)
    assert (closed.status, closed.decided_by) == (ApplicationStatus.REJECTED, admin.id)
    with pytest.raises(NotFound):
        applications.approve(actor=admin, user_id=applicant.id)


def test_an_admin_cannot_delete_itself():
    admin = f.make_admin()
    f.make_admin()
    with pytest.raises(Conflict, match="You cannot delete your own account"):
        deletion.delete_user(actor=admin, user_id=admin.id)
    assert _get(User, admin.id).deleted_at is None


def test_another_admin_can_be_deleted_but_never_the_last_one():
    first, second = f.make_admin(), f.make_admin()
    deletion.delete_user(actor=first, user_id=second.id)
    assert _get(User, second.id).deleted_at is not None
    # `first` was demoted meanwhile (its object is stale): `third` is now the only admin left.
    third = f.make_admin()
    with db.session_scope() as session:
        row = session.get(User, first.id)
        row.role = Role.USER
        session.add(row)
    with pytest.raises(Conflict, match="The last admin cannot be deleted"):
        deletion.delete_user(actor=first, user_id=third.id)
    # A stale admin deleting a customer is refused too: the role is checked again under the lock.
    with pytest.raises(Forbidden):
        deletion.delete_user(actor=first, user_id=f.make_user().id)
    assert _get(User, third.id).deleted_at is None


@pytest.mark.parametrize("user_id", ["missing", "", "x" * 65])
def test_unknown_users_and_agents_are_404(user_id):
    admin = f.make_admin()
    with pytest.raises(NotFound, match="User not found"):
        deletion.delete_user(actor=admin, user_id=user_id)
    with pytest.raises(NotFound, match="Agent not found"):
        deletion.delete_agent(actor=admin, agent_id=user_id)


def test_deleting_twice_is_404():
    admin, user, agent = f.make_admin(), f.make_user(), f.make_agent()
    deletion.delete_user(actor=admin, user_id=user.id)
    deletion.delete_agent(actor=admin, agent_id=agent.id)
    with pytest.raises(NotFound):
        deletion.delete_user(actor=admin, user_id=user.id)
    with pytest.raises(NotFound):
        deletion.delete_agent(actor=admin, agent_id=agent.id)
    assert [a for a, _, _ in f.audit_actions()] == ["user.delete", "agent.delete"]


@pytest.mark.parametrize("status", list(AgentStatus))
def test_deleting_an_agent_takes_it_out_of_the_catalogue_and_queue_but_buyers_keep_it(status):
    admin, vendor, buyer = f.make_admin(), f.make_vendor(), f.make_user()
    agent = f.make_agent(vendor, status=status)
    f.store_agent_file(agent, b"v1")
    f.make_purchase(buyer, agent)

    deletion.delete_agent(actor=admin, agent_id=agent.id)

    row = _get(Agent, agent.id)
    assert row.deleted_at is not None and row.status == status
    assert not visibility.can_see(row, admin)
    assert moderation.list_pending(actor=admin) == ([], 0)
    with pytest.raises(NotFound):
        moderation.approve(actor=admin, agent_id=agent.id)
    assert _download(buyer, agent) == b"v1"
    assert _get(User, vendor.id).deleted_at is None
    assert f.audit_actions() == [("agent.delete", "agent", agent.id)]


def test_two_admins_deleting_each_other_at_once_leave_one_admin():
    first, second = f.make_admin(), f.make_admin()
    start = threading.Barrier(2)
    errors: list[Exception] = []

    def delete(actor: User, target: User) -> None:
        start.wait()
        try:
            deletion.delete_user(actor=actor, user_id=target.id)
        except Exception as error:  # PostgreSQL: Conflict after the lock wait; SQLite: a busy snapshot
            errors.append(error)

    threads = [threading.Thread(target=delete, args=pair) for pair in ((first, second), (second, first))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert len(errors) == 1
    assert _count(User, User.role == Role.ADMIN, User.deleted_at.is_(None)) == 1
    if db.is_postgres():
        assert isinstance(errors[0], Conflict) and errors[0].message == deletion.LAST_ADMIN
