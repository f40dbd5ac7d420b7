"""Reviews from buyers (issue 33): who may review, the vendor's one answer, an admin's removal with a reason."""

from __future__ import annotations

from collections import Counter
from functools import partial

import pytest
from sqlmodel import select

from marketplace import db
from marketplace.models import AuditEntry, Notification, Review, User
from marketplace.services import review_replies
from marketplace.services.admin import reviews as admin_reviews
from marketplace.services.errors import Conflict, Forbidden, Invalid, NotFound, Unauthorized
from tests import factories
from tests.catalog_helpers import agent_row
from tests.live_api import LiveApi, fire

NOT_A_BUYER = {"message": "Only customers who bought this agent can review it."}


@pytest.fixture
def vendor():
    return factories.make_vendor("seller")


@pytest.fixture
def agent(vendor):
    return factories.make_agent(vendor, "Bot")


def _post(client, agent, rating=5, comment="Works well"):
    return client.post(f"/api/agents/{agent.id}/reviews", json={"rating": rating, "comment": comment})


# ---- who may review ------------------------------------------------------------------------------------------


def test_a_non_buyer_is_refused_and_moves_nothing(client, login, agent):
    login(factories.make_user("stranger"))
    response = _post(client, agent)
    assert (response.status_code, response.json()) == (403, NOT_A_BUYER)
    row = agent_row(agent.id)
    assert (row.review_count, row.rating_sum) == (0, 0)


def test_a_refunded_buyer_is_refused(client, login, agent):
    buyer = factories.make_user("refunded")
    factories.make_order(agent, buyer, status="refunded", refunded_at=factories.ago(days=1))
    login(buyer)
    assert (_post(client, agent).status_code, _post(client, agent).json()) == (403, NOT_A_BUYER)


def test_a_buyer_reviews_and_the_review_says_verified(client, login, agent):
    login(factories.make_buyer(agent, "buyer"))
    created = _post(client, agent, rating=4)
    assert created.status_code == 201, created.text
    assert (created.json()["verifiedPurchase"], created.json()["vendorReply"]) == (True, None)
    [listed] = client.get(f"/api/agents/{agent.id}/reviews").json()
    assert (listed["verifiedPurchase"], listed["isVerifiedPurchase"], listed["vendorReply"]) == (True, True, None)


def test_a_buyer_bad_input_is_refused(client, login, agent):
    login(factories.make_buyer(agent))
    response = _post(client, agent, rating=7)
    assert response.status_code == 422 and response.json()["message"].startswith("rating")
    assert agent_row(agent.id).review_count == 0


# ---- the vendor's answer -------------------------------------------------------------------------------------


def _reply(client, review_id, body):
    return client.put(f"/api/vendor/reviews/{review_id}/reply", json=body)


def test_the_vendor_answers_once_and_may_edit(client, login, vendor, agent):
    review = factories.make_review(agent)
    login(vendor)
    first = _reply(client, review.id, {"reply": "  Thanks, glad it helps!  "})
    assert first.status_code == 200, first.text
    answer = first.json()["vendorReply"]
    assert answer["text"] == "Thanks, glad it helps!"
    edited = _reply(client, review.id, {"reply": "Thanks! Version 2 fixes the rest."})
    assert edited.json()["vendorReply"]["text"] == "Thanks! Version 2 fixes the rest."
    assert edited.json()["vendorReply"]["createdAt"] == answer["createdAt"]  # one answer, edited
    [listed] = client.get(f"/api/agents/{agent.id}/reviews").json()
    assert listed["vendorReply"]["text"] == "Thanks! Version 2 fixes the rest."
    with db.session_scope() as session:  # the reviewer is told once, when the answer is first given
        told = session.exec(select(Notification).where(Notification.user_id == review.user_id)).all()
    assert [n.title for n in told] == ["The vendor answered your review"]


def test_only_the_agents_vendor_answers(client, login, agent):
    review = factories.make_review(agent)
    for someone in (factories.make_vendor("other"), factories.make_admin(), factories.make_user()):
        login(someone)
        response = _reply(client, review.id, {"reply": "Not mine to answer"})
        assert (response.status_code, response.json()["message"]) == (
            403, "Only this agent's vendor can answer its reviews.")
    client.cookies.clear()
    assert _reply(client, review.id, {"reply": "x"}).status_code == 401
    [listed] = client.get(f"/api/agents/{agent.id}/reviews").json()
    assert listed["vendorReply"] is None


@pytest.mark.parametrize(("body", "message"), [
    ({"reply": ""}, "Please write your answer: it cannot be empty."),
    ({"reply": "   \n "}, "Please write your answer: it cannot be empty."),
    ({}, "Please write your answer: it cannot be empty."),
    ({"reply": 42}, "Please write your answer: it cannot be empty."),
    ({"reply": "x" * 2001}, "Your answer must be at most 2000 characters."),
])
def test_a_bad_answer_is_refused_with_a_clear_message(client, login, vendor, agent, body, message):
    review = factories.make_review(agent)
    login(vendor)
    response = _reply(client, review.id, body)
    assert (response.status_code, response.json()["message"]) == (400, message)
    assert client.get(f"/api/agents/{agent.id}/reviews").json()[0]["vendorReply"] is None


def test_an_unknown_review_is_404(client, login, vendor):
    login(vendor)
    assert _reply(client, "no-such-review", {"reply": "Hi"}).status_code == 404


def test_the_answer_service_refuses_as_the_route_does(vendor, agent):
    review = factories.make_review(agent)
    with pytest.raises(Unauthorized):
        review_replies.reply_to_review(actor=None, review_id=review.id, reply="Hi")
    with pytest.raises(Forbidden):
        review_replies.reply_to_review(actor=factories.make_vendor(), review_id=review.id, reply="Hi")
    with pytest.raises(Invalid):
        review_replies.reply_to_review(actor=vendor, review_id=review.id, reply=" ")
    with pytest.raises(NotFound):
        review_replies.reply_to_review(actor=vendor, review_id="missing", reply="Hi")
    assert review_replies.reply_to_review(actor=vendor, review_id=review.id, reply="Hi").vendor_reply.text == "Hi"


# ---- an admin's removal --------------------------------------------------------------------------------------


def _remove(client, path, body):
    return client.request("DELETE", path, json=body)


def test_an_admin_removes_a_review_and_the_rating_follows(client, login, agent):
    keep = factories.make_review(agent, rating=5)
    gone = factories.make_review(agent, rating=2)
    assert (agent_row(agent.id).review_count, agent_row(agent.id).avg_rating) == (2, 3.5)
    login(factories.make_admin("mod"))
    response = _remove(client, f"/api/admin/reviews/{gone.id}", {"reason": "Spam"})
    assert response.status_code == 204, response.text
    row = agent_row(agent.id)
    assert (row.review_count, row.rating_sum, row.avg_rating) == (1, 5, 5.0)
    assert [r["id"] for r in client.get(f"/api/agents/{agent.id}/reviews").json()] == [keep.id]
    assert client.get(f"/api/agents/{agent.id}").json()["reviewCount"] == 1
    assert _remove(client, f"/api/admin/reviews/{gone.id}", {"reason": "Spam"}).status_code == 404
    assert ("review.remove", "review", gone.id) in factories.audit_actions()
    with db.session_scope() as session:
        entry = session.exec(select(AuditEntry).where(AuditEntry.action == "review.remove")).one()
    assert '"reason": "Spam"' in entry.details
    log = client.get("/api/admin/audit-log").json()
    assert any("removed" in str(e) and "Spam" in str(e) for e in log), log

    # The last review removed: no rating left.
    assert _remove(client, f"/api/admin/reviews/{keep.id}", {"reason": "Fake"}).status_code == 204
    row = agent_row(agent.id)
    assert (row.review_count, row.rating_sum, row.avg_rating) == (0, 0, 0.0)


def test_an_admin_removes_an_answer(client, login, vendor, agent):
    review = factories.make_review(agent, reply="Rude words")
    login(factories.make_admin("mod"))
    assert _remove(client, f"/api/admin/reviews/{review.id}/reply", {"reason": "Abusive"}).status_code == 204
    [listed] = client.get(f"/api/agents/{agent.id}/reviews").json()
    assert listed["vendorReply"] is None and listed["id"] == review.id
    assert _remove(client, f"/api/admin/reviews/{review.id}/reply", {"reason": "Again"}).status_code == 409
    assert ("review.reply_remove", "review", review.id) in factories.audit_actions()
    login(vendor)  # the vendor may answer again
    assert _reply(client, review.id, {"reply": "Sorry about that."}).status_code == 200


@pytest.mark.parametrize("body", [None, {}, {"reason": ""}, {"reason": "   "}, {"reason": "x" * 501}])
def test_a_removal_needs_a_reason(client, login, agent, body):
    review = factories.make_review(agent, reply="Answer")
    login(factories.make_admin())
    for path in (f"/api/admin/reviews/{review.id}", f"/api/admin/reviews/{review.id}/reply"):
        response = _remove(client, path, body)
        assert response.status_code == 400, response.text
        assert "reason" in response.json()["message"]
    with db.session_scope() as session:
        assert session.get(Review, review.id).vendor_reply == "Answer"
    assert agent_row(agent.id).review_count == 1
    assert factories.audit_actions() == []


def test_only_admins_remove(client, login, vendor, agent):
    review = factories.make_review(agent, reply="Answer")
    for someone in (vendor, factories.make_user(), review_author(review)):
        login(someone)
        for path in (f"/api/admin/reviews/{review.id}", f"/api/admin/reviews/{review.id}/reply"):
            assert _remove(client, path, {"reason": "Mine"}).status_code == 403
    for call in (admin_reviews.remove_review, admin_reviews.remove_reply):
        with pytest.raises(Forbidden):
            call(actor=vendor, review_id=review.id, reason="Mine")
        with pytest.raises(Unauthorized):
            call(actor=None, review_id=review.id, reason="Mine")
    assert agent_row(agent.id).review_count == 1


def test_the_removal_services_answer_unknown_and_empty(agent):
    admin = factories.make_admin()
    review = factories.make_review(agent)
    with pytest.raises(NotFound):
        admin_reviews.remove_review(actor=admin, review_id="missing", reason="x")
    with pytest.raises(Conflict):
        admin_reviews.remove_reply(actor=admin, review_id=review.id, reason="No answer here")
    with pytest.raises(Invalid):
        admin_reviews.remove_review(actor=admin, review_id=review.id, reason=None)


def review_author(review: Review) -> User:
    with db.session_scope() as session:
        user = session.get(User, review.user_id)
        session.expunge(user)
        return user


# ---- at the same moment, over HTTP (tests/live_api.py) ----------------------------------------------------------


def test_simultaneous_removals_remove_a_review_once(live_api: LiveApi):
    agent = factories.make_agent(factories.make_vendor())
    factories.make_review(agent, rating=5)
    gone = factories.make_review(agent, rating=1)
    admin = live_api.signed_in(factories.make_admin().username)
    answers = fire([partial(admin.request, "DELETE", f"/api/admin/reviews/{gone.id}", json={"reason": "Spam"})] * 5)
    assert Counter(a.status_code for a in answers) == {204: 1, 404: 4}, [a.text for a in answers]
    row = agent_row(agent.id)
    assert (row.review_count, row.rating_sum, row.avg_rating) == (1, 5, 5.0)
    assert [a for a in factories.audit_actions() if a[0] == "review.remove"] == [("review.remove", "review", gone.id)]


def test_simultaneous_first_answers_leave_one_answer_and_one_notification(live_api: LiveApi):
    vendor = factories.make_vendor()
    review = factories.make_review(factories.make_agent(vendor))
    client = live_api.signed_in(vendor.username)
    answers = fire([partial(client.put, f"/api/vendor/reviews/{review.id}/reply", json={"reply": f"Thanks {n}"})
                    for n in range(5)])
    assert {a.status_code for a in answers} == {200}, [a.text for a in answers]
    with db.session_scope() as session:
        told = session.exec(select(Notification).where(Notification.user_id == review.user_id)).all()
        assert len(told) == 1
        assert session.get(Review, review.id).vendor_reply in {f"Thanks {n}" for n in range(5)}
