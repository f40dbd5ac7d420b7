"""Vendor applications: apply rules, the admin list (search, status, paging) and the decisions."""

from __future__ import annotations

import pytest
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from marketplace import db
from marketplace.models import ApplicationStatus, Notification, Role, User, VendorApplication
from marketplace.services.admin import applications as admin
from marketplace.services.errors import Conflict, Forbidden, Invalid, InvalidParameter, NotFound, Unauthorized
from marketplace.services.vendors import applications
from tests.factories import ago, make_admin, make_application, make_user, make_vendor


def _user(user_id: str) -> User:
    with db.session_scope() as session:
        return session.get(User, user_id)


def _notes(user_id: str) -> list[Notification]:
    with db.session_scope() as session:
        return list(session.exec(select(Notification).where(Notification.user_id == user_id)).all())


def test_apply_messages_are_the_shared_constants():
    user = make_user()
    with pytest.raises(Invalid) as missing:
        applications.apply(actor=user, business_name=" ")
    assert (missing.value.message, missing.value.field) == (applications.BUSINESS_NAME_REQUIRED, "businessName")
    with pytest.raises(Invalid) as long_text:
        applications.apply(actor=user, business_name="Acme", business_description="x" * 5001)
    assert long_text.value.message == applications.DESCRIPTION_TOO_LONG
    with pytest.raises(Invalid, match=r"http\(s\)"):
        applications.apply(actor=user, business_name="Acme", website="mailto:a@b.c")
    assert applications.clean_website(" http://acme.example.com/x ") == "http://acme.example.com/x"
    assert applications.clean_description("  ") is None


def test_unapproved_vendor_role_and_admin_are_refused():
    for user in (make_vendor(vendor_approved=False), make_vendor(), make_admin()):
        with pytest.raises(Invalid, match=applications.NOT_A_CUSTOMER):
            applications.apply(actor=user, business_name="Acme")


def test_the_database_keeps_one_pending_application_per_user():
    user = make_user()
    make_application(user)
    with pytest.raises(IntegrityError):
        make_application(user)
    make_application(user, status=ApplicationStatus.REJECTED)  # decided ones do not count


def test_apply_again_after_a_rejection():
    user, root = make_user(), make_admin()
    applications.apply(actor=user, business_name="Acme")
    admin.reject(actor=root, user_id=user.id)
    again = applications.apply(actor=user, business_name="Acme 2")
    assert again.status == "pending"
    assert applications.latest_application(actor=user).id == again.id


def test_approve_makes_an_approved_vendor_and_notifies():
    user, root = make_user(), make_admin()
    application = applications.apply(actor=user, business_name="Acme")
    decided = admin.approve(actor=root, user_id=user.id)
    assert (decided.id, decided.status, decided.decided_by) == (application.id, "approved", root.id)
    assert decided.decided_at is not None
    row = _user(user.id)
    assert (row.role, row.is_vendor_approved) == (Role.VENDOR, True)
    [note] = _notes(user.id)
    assert (note.type, note.title) == ("approval", admin.APPROVED_TITLE)
    assert "Acme" in note.message and "You can now list agents" in note.message
    with pytest.raises(Conflict, match=admin.ALREADY_DECIDED):
        admin.approve(actor=root, user_id=user.id)  # decided once only


def test_reject_keeps_a_customer_and_notifies():
    user, root = make_user(), make_admin()
    applications.apply(actor=user, business_name="Acme")
    decided = admin.reject(actor=root, user_id=user.id)
    assert (decided.status, decided.decided_by) == ("rejected", root.id)
    row = _user(user.id)
    assert (row.role, row.is_vendor_approved) == (Role.USER, False)
    assert [n.type for n in _notes(user.id)] == ["rejection"]


def test_decisions_need_an_admin_and_a_pending_application():
    user = make_user()
    make_application(user)
    for actor, error in ((None, Unauthorized), (make_user(), Forbidden), (make_vendor(), Forbidden)):
        for decide in (admin.approve, admin.reject):
            with pytest.raises(error):
                decide(actor=actor, user_id=user.id)
        with pytest.raises(error):
            admin.list_applications(actor=actor)
    root = make_admin()
    with pytest.raises(NotFound, match="No pending application"):
        admin.reject(actor=root, user_id=make_user().id)
    with pytest.raises(NotFound):
        admin.approve(actor=root, user_id="unknown")
    with db.session_scope() as session:
        assert session.exec(select(VendorApplication)).one().status == "pending"


def test_list_with_applicant_search_status_and_paging():
    root = make_admin()
    alice = make_user("alice", email="alice@shop.test", first_name="Alice", last_name="Liddell")
    bob = make_user("bob")
    carol = make_user("carol")
    make_application(alice, business_name="Wonder Agents", created_at=ago(days=3))
    make_application(bob, business_name="Bob's Bots", created_at=ago(days=2))
    make_application(carol, business_name="Carol Co", created_at=ago(days=1), status=ApplicationStatus.REJECTED)

    records, total = admin.list_applications(actor=root)
    assert total == 2 and [r.username for r in records] == ["bob", "alice"]  # pending, newest first
    alice_record = records[1]
    assert (alice_record.email, alice_record.first_name, alice_record.last_name) == (
        "alice@shop.test", "Alice", "Liddell")
    assert alice_record.application.business_name == "Wonder Agents"

    assert admin.list_applications(actor=root, status=None)[1] == 3
    assert admin.list_applications(actor=root, status="all")[1] == 3
    assert [r.username for r in admin.list_applications(actor=root, status="rejected")[0]] == ["carol"]
    for term, expected in (("wonder", ["alice"]), ("SHOP.TEST", ["alice"]), ("bob", ["bob"]), ("%", []),
                           ("_", []), ("  ", ["bob", "alice"])):
        assert [r.username for r in admin.list_applications(actor=root, search=term)[0]] == expected, term
    page, total = admin.list_applications(actor=root, status=None, limit=1, offset=1)
    assert total == 3 and [r.username for r in page] == ["bob"]


@pytest.mark.parametrize("kwargs", [{"limit": 0}, {"limit": 101}, {"offset": -1}, {"offset": 10**9},
                                    {"status": "maybe"}, {"search": "x" * 201}])
def test_list_refuses_bad_parameters(kwargs):
    with pytest.raises(InvalidParameter):
        admin.list_applications(actor=make_admin(), **kwargs)


def test_a_race_past_the_check_is_a_conflict(monkeypatch):
    """If the pending check misses a concurrent insert, the unique index answers and apply says 409."""
    user = make_user()
    make_application(user)
    real_exec = Session.exec

    def blind_exec(session, statement, *args, **kwargs):  # the pending check sees nothing
        if "vendor_applications.id" in str(statement) and "status" in str(statement):
            return real_exec(session, statement.where(VendorApplication.id == "none"), *args, **kwargs)
        return real_exec(session, statement, *args, **kwargs)

    monkeypatch.setattr(Session, "exec", blind_exec)
    with pytest.raises(Conflict, match=applications.ALREADY_PENDING):
        applications.apply(actor=user, business_name="Acme")


def test_one_click_application_is_named_after_the_profile():
    with pytest.raises(Unauthorized):
        applications.apply_with_profile(actor=None)
    with pytest.raises(Invalid, match=applications.NOT_A_CUSTOMER):
        applications.apply_with_profile(actor=make_vendor())
    named = make_user(first_name="Ada", last_name="Lovelace")
    application = applications.apply_with_profile(actor=named)
    assert (application.business_name, application.business_description) == (
        "Ada Lovelace AI Agents", applications.PROFILE_PITCH)
    bare = make_user("bare_user")
    assert applications.apply_with_profile(actor=bare).business_name == "bare_user AI Agents"
    with pytest.raises(Conflict):
        applications.apply_with_profile(actor=named)
