from datetime import UTC, datetime

import pytest
from sqlalchemy import func, select

from marketplace import db
from marketplace.models import AgentStatus, Favorite, Report, Review, Role
from marketplace.services import catalog, favorites, reports, reviews
from marketplace.services.errors import Conflict, Forbidden, InvalidParameter, NotFound, Unauthorized
from tests.catalog_helpers import agent_row
from tests.factories import ago, make_agent, make_buyer, make_order, make_purchase, make_subscription


@pytest.fixture
def vendor(make_user):
    return make_user("maker", role=Role.VENDOR, vendor_approved=True)


@pytest.fixture
def customer(make_user):
    user = make_user("carol")
    with db.session_scope() as session:
        row = session.get(type(user), user.id)
        row.first_name = "Carol"
    user.first_name = "Carol"
    return user


def totals(agent_id):
    row = agent_row(agent_id)
    return row.rating_sum, row.review_count, row.avg_rating


# ---- reviews ----------------------------------------------------------------------------------------


def test_review_is_created_with_author_and_totals(vendor, customer):
    agent = make_agent(vendor, "Bot")
    make_purchase(customer, agent)
    saved = reviews.submit_review(actor=customer, agent_id=agent.id, rating=4, comment="  Handy tool.  ")
    assert saved.created
    data = saved.review.model_dump(by_alias=True, mode="json")
    assert data["rating"] == 4
    assert data["comment"] == "Handy tool."
    assert data["isVerifiedPurchase"] is True and data["verifiedPurchase"] is True
    assert data["vendorReply"] is None
    assert data["user"] == {"id": customer.id, "username": "carol", "firstName": "Carol"}
    assert set(data) == {"id", "rating", "comment", "createdAt", "updatedAt", "isVerifiedPurchase",
                         "verifiedPurchase", "user", "vendorReply"}
    assert totals(agent.id) == (4, 1, 4.0)
    assert catalog.get_agent(agent_id=agent.id).avg_rating == "4.00"


def test_posting_again_updates_the_review_and_keeps_the_average_right(vendor, customer):
    agent = make_agent(vendor, "Bot")
    make_purchase(customer, agent)
    other = make_buyer(agent, "dave")
    first = reviews.submit_review(actor=customer, agent_id=agent.id, rating=5, comment="Great")
    reviews.submit_review(actor=other, agent_id=agent.id, rating=4, comment="Good")
    assert totals(agent.id) == (9, 2, 4.5)

    again = reviews.submit_review(actor=customer, agent_id=agent.id, rating=2, comment="Broke after update")
    assert not again.created
    assert again.review.id == first.review.id
    assert again.review.created_at == first.review.created_at
    assert again.review.updated_at >= first.review.updated_at
    assert totals(agent.id) == (6, 2, 3.0)
    public = catalog.get_agent(agent_id=agent.id)
    assert (public.avg_rating, public.review_count) == ("3.00", 2)
    with db.session_scope() as session:
        assert session.execute(select(func.count()).select_from(Review)).scalar_one() == 2

    page = reviews.list_reviews(agent_id=agent.id)
    assert page.total == 2
    assert [r.comment for r in page.items] == ["Good", "Broke after update"]


def test_average_rounds_to_two_decimals(vendor):
    agent = make_agent(vendor, "Bot")
    for n, rating in enumerate((5, 5, 4)):
        reviews.submit_review(actor=make_buyer(agent, f"r{n}"), agent_id=agent.id, rating=rating, comment="ok")
    assert catalog.get_agent(agent_id=agent.id).avg_rating == "4.67"
    assert catalog.list_agents(rating="4+").total == 1


def test_only_buyers_may_review(make_user, vendor, customer):
    """A non-buyer is refused (403, the issue's words) and moves nothing; a buyer's review is verified."""
    agent = make_agent(vendor, "Bot")
    for actor in (customer, make_user("admin1", role=Role.ADMIN), make_user("v2", role=Role.VENDOR,
                                                                            vendor_approved=True)):
        with pytest.raises(Forbidden) as caught:
            reviews.submit_review(actor=actor, agent_id=agent.id, rating=5, comment="Never bought it")
        assert caught.value.message == "Only customers who bought this agent can review it."
    assert totals(agent.id) == (0, 0, 0.0)
    make_purchase(customer, agent)
    saved = reviews.submit_review(actor=customer, agent_id=agent.id, rating=5, comment="After buying")
    assert saved.review.is_verified_purchase is True and saved.review.verified_purchase is True
    assert reviews.list_reviews(agent_id=agent.id).items[0].verified_purchase is True


def test_a_refunded_buyer_may_not_review(make_user, vendor):
    """The order refunded and the access ended (as a refund leaves them): no review."""
    agent = make_agent(vendor, "Bot")
    buyer = make_user("refunded")
    make_order(agent, buyer, status="refunded", refunded_at=datetime.now(UTC))
    with pytest.raises(Forbidden, match=r"^Only customers who bought this agent can review it\.$"):
        reviews.submit_review(actor=buyer, agent_id=agent.id, rating=1, comment="Refunded")
    assert totals(agent.id) == (0, 0, 0.0)


def test_a_subscriber_may_review_and_a_past_subscriber_too(make_user, vendor):
    """Holds access now (a subscription), or held paid access (a completed order, the subscription over)."""
    agent = make_agent(vendor, "Bot")
    current = make_user("subscriber")
    make_subscription(agent, current)
    assert reviews.submit_review(actor=current, agent_id=agent.id, rating=4, comment="Good").created
    past = make_user("past")
    make_order(agent, past)  # its first invoice, paid
    make_subscription(agent, past, status="canceled", access_until=ago(days=40))
    assert reviews.submit_review(actor=past, agent_id=agent.id, rating=3, comment="Was fine").created
    lapsed = make_user("lapsed")  # access ended and nothing paid stays: no
    make_subscription(agent, lapsed, status="canceled", access_until=ago(days=40))
    with pytest.raises(Forbidden):
        reviews.submit_review(actor=lapsed, agent_id=agent.id, rating=1, comment="x")


@pytest.mark.parametrize(
    ("rating", "comment", "field"),
    [
        (0, "ok", "rating"),
        (6, "ok", "rating"),
        (4.5, "ok", "rating"),
        (True, "ok", "rating"),
        (None, "ok", "rating"),
        ("five", "ok", "rating"),
        (5, "", "comment"),
        (5, "   \n ", "comment"),
        (5, None, "comment"),
        (5, 42, "comment"),
        (5, "x" * 2001, "comment"),
    ],
)
def test_review_validation(vendor, customer, rating, comment, field):
    agent = make_agent(vendor, "Bot")
    with pytest.raises(InvalidParameter) as caught:
        reviews.submit_review(actor=customer, agent_id=agent.id, rating=rating, comment=comment)
    assert caught.value.field == field and caught.value.message.startswith(field)
    assert totals(agent.id) == (0, 0, 0.0)


def test_review_rating_may_come_as_digits(vendor, customer):
    agent = make_agent(vendor, "Bot")
    make_purchase(customer, agent)
    assert reviews.submit_review(actor=customer, agent_id=agent.id, rating="3", comment="fine").review.rating == 3
    long = "y" * 2000
    assert reviews.submit_review(actor=customer, agent_id=agent.id, rating=3, comment=long).review.comment == long


def test_only_live_agents_can_be_reviewed(vendor, customer):
    pending = make_agent(vendor, "Pending", status=AgentStatus.PENDING)
    deleted = make_agent(vendor, "Deleted", deleted_at=datetime.now(UTC))
    for agent_id in (pending.id, deleted.id, "missing"):
        with pytest.raises(NotFound, match="Agent not found"):
            reviews.submit_review(actor=customer, agent_id=agent_id, rating=5, comment="x")


def test_review_needs_a_user_and_not_the_vendor(vendor):
    agent = make_agent(vendor, "Bot")
    with pytest.raises(Unauthorized):
        reviews.submit_review(actor=None, agent_id=agent.id, rating=5, comment="x")
    with pytest.raises(Forbidden):
        reviews.submit_review(actor=vendor, agent_id=agent.id, rating=5, comment="mine is great")
    assert totals(agent.id) == (0, 0, 0.0)


def test_reviews_of_hidden_agents_are_not_listed(make_user, vendor):
    pending = make_agent(vendor, "Pending", status=AgentStatus.PENDING)
    with pytest.raises(NotFound):
        reviews.list_reviews(agent_id=pending.id, actor=make_user("x"))
    assert reviews.list_reviews(agent_id=pending.id, actor=vendor).items == []


def test_reviews_paging(vendor):
    agent = make_agent(vendor, "Bot")
    for n in range(3):
        reviews.submit_review(actor=make_buyer(agent, f"p{n}"), agent_id=agent.id, rating=5, comment=f"c{n}")
    page = reviews.list_reviews(agent_id=agent.id, limit=2, offset=1)
    assert page.total == 3 and [r.comment for r in page.items] == ["c1", "c0"]
    with pytest.raises(InvalidParameter, match=r"^limit"):
        reviews.list_reviews(agent_id=agent.id, limit=0)


# ---- favourites -------------------------------------------------------------------------------------


def test_favourites_are_idempotent_and_counted(make_user, vendor, customer):
    agent = make_agent(vendor, "Bot")
    other = make_user("erin")
    assert favorites.add_favorite(actor=customer, agent_id=agent.id).is_favorited is True
    assert favorites.add_favorite(actor=customer, agent_id=agent.id).is_favorited is True
    favorites.add_favorite(actor=other, agent_id=agent.id)
    assert agent_row(agent.id).favorites_count == 2
    with db.session_scope() as session:
        assert session.execute(select(func.count()).select_from(Favorite)).scalar_one() == 2
    assert favorites.is_favorited(actor=customer, agent_id=agent.id).is_favorited is True

    assert favorites.remove_favorite(actor=customer, agent_id=agent.id).is_favorited is False
    assert favorites.remove_favorite(actor=customer, agent_id=agent.id).is_favorited is False
    assert agent_row(agent.id).favorites_count == 1
    assert favorites.is_favorited(actor=customer, agent_id=agent.id).is_favorited is False
    assert favorites.remove_favorite(actor=customer, agent_id="never-existed").is_favorited is False


def test_favourite_list_is_newest_first_and_live_only(vendor, customer):
    first = make_agent(vendor, "First", tags=["a"])
    second = make_agent(vendor, "Second")
    third = make_agent(vendor, "Third")
    for agent in (second, first, third):
        favorites.add_favorite(actor=customer, agent_id=agent.id)
    with db.session_scope() as session:
        session.get(type(third), third.id).status = AgentStatus.PENDING
    page = favorites.list_favorites(actor=customer)
    assert [a.name for a in page.items] == ["First", "Second"]
    assert page.total == 2
    assert page.items[0].tags == ["a"]
    assert favorites.list_favorites(actor=customer, limit=1, offset=1).items[0].name == "Second"


def test_favourites_need_sign_in_and_a_live_agent(vendor, customer):
    pending = make_agent(vendor, "Pending", status=AgentStatus.PENDING)
    with pytest.raises(Unauthorized):
        favorites.add_favorite(actor=None, agent_id=pending.id)
    with pytest.raises(Unauthorized):
        favorites.remove_favorite(actor=None, agent_id=pending.id)
    with pytest.raises(Unauthorized):
        favorites.list_favorites(actor=None)
    with pytest.raises(NotFound):
        favorites.add_favorite(actor=customer, agent_id=pending.id)
    for bad in (None, "", "   ", 42, "x" * 65):
        with pytest.raises(InvalidParameter, match=r"^agentId"):
            favorites.add_favorite(actor=customer, agent_id=bad)
    assert agent_row(pending.id).favorites_count == 0


def test_favorited_is_false_when_signed_out(vendor):
    agent = make_agent(vendor, "Bot")
    assert favorites.is_favorited(actor=None, agent_id=agent.id).is_favorited is False
    assert favorites.is_favorited(actor=None, agent_id="missing").is_favorited is False


# ---- reports ----------------------------------------------------------------------------------------


def test_report_is_recorded_once_per_user(make_user, vendor, customer):
    agent = make_agent(vendor, "Bot")
    report = reports.report_agent(actor=customer, agent_id=agent.id, report_type="Broken",
                                  reason="  Crashes on start ", description="   ")
    assert (report.report_type, report.reason, report.description, report.status) == (
        "broken", "Crashes on start", None, "pending"
    )
    assert reports.has_reported(actor=customer, agent_id=agent.id).has_reported is True
    with pytest.raises(Conflict, match="You have already reported this agent"):
        reports.report_agent(actor=customer, agent_id=agent.id, report_type="spam", reason="again")
    other = reports.report_agent(actor=make_user("frank"), agent_id=agent.id, report_type="other",
                                 reason="Odd", description=" Details here ")
    assert other.description == "Details here"
    with db.session_scope() as session:
        assert session.execute(select(func.count()).select_from(Report)).scalar_one() == 2


@pytest.mark.parametrize("kind", ["broken", "misleading", "inappropriate", "spam", "other"])
def test_each_report_type_is_accepted(vendor, customer, kind):
    agent = make_agent(vendor, "Bot")
    assert reports.report_agent(actor=customer, agent_id=agent.id, report_type=kind, reason="r").report_type == kind


@pytest.mark.parametrize(
    ("report_type", "reason", "description", "field"),
    [
        ("", "r", None, "reportType"),
        (None, "r", None, "reportType"),
        ("ugly", "r", None, "reportType"),
        ("spam", "", None, "reason"),
        ("spam", "   ", None, "reason"),
        ("spam", None, None, "reason"),
        ("spam", "x" * 1001, None, "reason"),
        ("spam", "r", 5, "description"),
        ("spam", "r", "d" * 2001, "description"),
    ],
)
def test_report_validation(vendor, customer, report_type, reason, description, field):
    agent = make_agent(vendor, "Bot")
    with pytest.raises(InvalidParameter) as caught:
        reports.report_agent(actor=customer, agent_id=agent.id, report_type=report_type, reason=reason,
                             description=description)
    assert caught.value.field == field and caught.value.message.startswith(field)
    assert reports.has_reported(actor=customer, agent_id=agent.id).has_reported is False


def test_report_needs_sign_in_a_live_agent_and_another_vendor(vendor, customer):
    agent = make_agent(vendor, "Bot")
    pending = make_agent(vendor, "Pending", status=AgentStatus.PENDING)
    with pytest.raises(Unauthorized):
        reports.report_agent(actor=None, agent_id=agent.id, report_type="spam", reason="r")
    with pytest.raises(NotFound):
        reports.report_agent(actor=customer, agent_id=pending.id, report_type="spam", reason="r")
    with pytest.raises(Forbidden):
        reports.report_agent(actor=vendor, agent_id=agent.id, report_type="spam", reason="r")
    assert reports.has_reported(actor=None, agent_id=agent.id).has_reported is False


@pytest.mark.parametrize("offset", [-1, 9_223_372_036_854_775_808])
def test_review_and_favourite_pages_bound_the_offset(offset, make_user):
    from marketplace.services import favorites, reviews
    from marketplace.services.errors import InvalidParameter

    user = make_user()
    with pytest.raises(InvalidParameter, match="offset must be between 0 and 1000000"):
        favorites.list_favorites(actor=user, offset=offset)
    with pytest.raises(InvalidParameter, match="offset must be between 0 and 1000000"):
        reviews.list_reviews(agent_id="whatever", offset=offset)
