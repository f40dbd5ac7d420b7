"""Reviews: one per user per agent (posting again edits it), with the agent's rating totals kept exact.

The agent's `rating_sum`, `review_count` and `avg_rating` change in the same transaction as the
review, by relative SQL updates on the locked agent row, so concurrent reviews cannot lose a vote.
Only a customer who holds or held paid access may review (issue 33: `bought`), so a fresh account cannot move
a rating. "Verified purchase" is the same rule computed when reading (a review written before the rule, by a
non-buyer, reads as unverified; a buyer refunded since reads so too).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pydantic import TypeAdapter
from sqlalchemy import ColumnElement, Float, Select, cast, exists, or_, select, update
from sqlalchemy.engine import Connection
from sqlmodel import Session

from marketplace.config import settings
from marketplace.db import session_scope
from marketplace.models import Agent, Order, OrderStatus, Purchase, Review, ReviewAuthor, ReviewPage, ReviewPublic, User
from marketplace.models.base import utcnow
from marketplace.models.engagement import VendorReplyPublic
from marketplace.services import access, decisions, ratelimit
from marketplace.services.catalog import LIVE, live_agent, reads, visible_agent
from marketplace.services.errors import Forbidden, InvalidParameter, NotFound
from marketplace.services.paging import check_page
from marketplace.services.permissions import require_user
from marketplace.services.text import check_text, is_digits

MAX_COMMENT = 2000
DEFAULT_LIMIT = 50
AGENTS = Agent.__table__


@dataclass(frozen=True)
class SavedReview:
    review: ReviewPublic
    created: bool


def validate_review(rating: object, comment: object) -> tuple[int, str]:
    if isinstance(rating, str) and is_digits(rating.strip()):
        rating = int(rating.strip())  # a form's select value
    if isinstance(rating, bool) or not isinstance(rating, int) or not 1 <= rating <= 5:
        raise InvalidParameter("rating must be a whole number from 1 to 5", field="rating")
    if not isinstance(comment, str) or not comment.strip():
        raise InvalidParameter("comment must not be blank", field="comment")
    comment = check_text(comment, field="comment", label="comment", multiline=True).strip()
    if len(comment) > MAX_COMMENT:
        raise InvalidParameter(f"comment must be at most {MAX_COMMENT} characters", field="comment")
    return rating, comment


NOT_A_BUYER = "Only customers who bought this agent can review it."


def bought(user_id: object, agent_id: object) -> ColumnElement[bool]:
    """The review rule: the user holds or held paid access to the agent and was not refunded. A completed order
    (a sale, a subscription's invoice or a free claim; a refund turns it `refunded`), or access now by the one
    access rule (a subscription's purchase row)."""
    return or_(
        exists().where(Order.user_id == user_id, Order.agent_id == agent_id, Order.status == OrderStatus.COMPLETED),
        exists().where(Purchase.user_id == user_id, Purchase.agent_id == agent_id, access.active()),
    )


def may_review(session: Session, *, user_id: str, agent_id: str) -> bool:
    return bool(session.execute(select(bought(user_id, agent_id))).scalar())


REVIEW_LIST = TypeAdapter(list[ReviewPublic])


def review_rows(session: Session, stmt) -> list[ReviewPublic]:  # noqa: ANN001
    rows = session.execute(stmt).all()
    return [
        ReviewPublic(
            id=review.id,
            rating=review.rating,
            comment=review.comment,
            created_at=review.created_at,
            updated_at=review.updated_at,
            is_verified_purchase=bool(verified),
            verified_purchase=bool(verified),
            user=ReviewAuthor(id=user_id, username=username, first_name=first_name) if user_id else None,
            vendor_reply=_reply(review),
        )
        for review, verified, user_id, username, first_name in rows
    ]


def _reply(review: Review) -> VendorReplyPublic | None:
    if review.vendor_reply is None or review.vendor_reply_at is None:
        return None
    return VendorReplyPublic(text=review.vendor_reply, created_at=review.vendor_reply_at,
                             updated_at=review.vendor_reply_updated_at or review.vendor_reply_at)


def select_reviews() -> Select:
    return select(
        Review,
        bought(Review.user_id, Review.agent_id).label("verified"),
        User.id,
        User.username,
        User.first_name,
    ).outerjoin(User, User.id == Review.user_id)


def list_reviews(
    *, agent_id: str, actor: User | None = None, limit: int = DEFAULT_LIMIT, offset: int = 0
) -> ReviewPage:
    """Reviews of an agent the caller may see, newest first."""
    check_page(limit=limit, offset=offset)
    with session_scope() as session:
        agent = visible_agent(session, agent_id=agent_id, actor=actor)
        return ReviewPage(items=review_rows(session, _page(agent.id, limit, offset)), total=agent.review_count)


def _page(agent_id: str, limit: int, offset: int):  # noqa: ANN202 (SQL statement)
    return (
        select_reviews()
        .where(Review.agent_id == agent_id)
        .order_by(Review.created_at.desc(), Review.id.desc())
        .limit(limit)
        .offset(offset)
    )


def list_reviews_json(
    *, agent_id: str, actor: Callable[[], User | None], limit: int = DEFAULT_LIMIT, offset: int = 0
) -> tuple[bytes, int]:
    """`list_reviews` as JSON and the total. A live agent's page is the same for everyone, so it is cached per
    catalog version (which every review, purchase and author change moves, revision 0014); `actor` is asked only
    for an agent that is not live (its vendor and admins may still read its reviews)."""
    check_page(limit=limit, offset=offset)

    def read(conn: Connection) -> tuple[bytes, int] | None:
        if not isinstance(agent_id, str) or not agent_id or len(agent_id) > 64:
            return None
        with Session(bind=conn) as session:
            total = session.execute(select(AGENTS.c.review_count).where(AGENTS.c.id == agent_id, LIVE)).scalar()
            if total is None:
                return None
            return REVIEW_LIST.dump_json(review_rows(session, _page(agent_id, limit, offset)), by_alias=True), total

    found = reads.cached(("reviews", agent_id, limit, offset), read)
    if found is not None:
        return found
    page = list_reviews(agent_id=agent_id, actor=actor(), limit=limit, offset=offset)
    return REVIEW_LIST.dump_json(page.items, by_alias=True), page.total


def _save(*, user: User, agent_id: str, rating: int, comment: str) -> bool:
    with session_scope() as session:
        agent = live_agent(session, agent_id=agent_id)
        if agent.vendor_id == user.id:
            raise Forbidden("You cannot review your own agent")
        if not may_review(session, user_id=user.id, agent_id=agent.id):
            raise Forbidden(NOT_A_BUYER)
        # Claim the agent's totals first (services/decisions.py): until this commits no other review of the
        # agent is written, so the review read next is the one this change replaces, and two edits cannot both
        # count from the same old rating.
        if not decisions.claim_any(session, Agent, Agent.id == agent.id, LIVE,
                                   values={"rating_sum": Agent.rating_sum}):
            raise NotFound("Agent not found")
        review = session.execute(
            select(Review).where(Review.agent_id == agent.id, Review.user_id == user.id)).scalars().first()
        now = utcnow()
        created = review is None
        if review is None:
            review = Review(agent_id=agent.id, user_id=user.id, rating=rating, comment=comment,
                            is_verified_purchase=True, created_at=now, updated_at=now)
            delta, added = rating, 1
        else:
            delta, added = rating - review.rating, 0
            review.rating, review.comment, review.updated_at = rating, comment, now
            review.is_verified_purchase = True
        session.add(review)
        session.flush()
        session.execute(
            update(AGENTS)
            .where(AGENTS.c.id == agent.id)
            .values(
                rating_sum=AGENTS.c.rating_sum + delta,
                review_count=AGENTS.c.review_count + added,
                avg_rating=cast(AGENTS.c.rating_sum + delta, Float) / (AGENTS.c.review_count + added),
            )
        )
    return created


def submit_review(*, actor: User | None, agent_id: str, rating: object, comment: object,
                  address: str | None = None) -> SavedReview:
    """Create the caller's review of a live agent, or replace their earlier one (rate-limited per `address`)."""
    user = require_user(actor)
    rating, comment = validate_review(rating, comment)
    ratelimit.hit_per_address(action="review", address=address, limit=settings.rate_limit_reviews)
    created = _save(user=user, agent_id=agent_id, rating=rating, comment=comment)
    with session_scope() as session:
        stmt = select_reviews().where(Review.agent_id == agent_id, Review.user_id == user.id)
        return SavedReview(review=review_rows(session, stmt)[0], created=created)
