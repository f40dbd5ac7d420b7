"""An admin removes a review, or a vendor's answer to one, giving a reason; both are audited (issue 33).

Removing a review takes the agent's rating totals first, as posting one does (services/reviews.py), then
deletes the review by one conditional write and subtracts its rating in the same transaction: the agent's
rating and review count are exact the moment it commits, and two removals of one review remove it once (the
loser answers 404 and records nothing).
"""

from __future__ import annotations

from sqlalchemy import Float, case, cast, select, update
from sqlmodel import delete

from marketplace.db import session_scope
from marketplace.models import Agent, Review, User
from marketplace.services import audit, decisions
from marketplace.services.errors import NotFound
from marketplace.services.permissions import require_admin
from marketplace.services.text import required_text

MAX_REASON = 500
REVIEW_NOT_FOUND = "Review not found"
NO_REPLY = "This review has no answer to remove"
REASON_REQUIRED = "Please give a reason for the removal: it is kept in the audit log."
REASON_TOO_LONG = f"The reason must be at most {MAX_REASON} characters."
AGENTS = Agent.__table__


def clean_reason(value: object) -> str:
    return required_text(value, field="reason", label="Reason", limit=MAX_REASON, missing=REASON_REQUIRED,
                         too_long=REASON_TOO_LONG)


def _known(review_id: object) -> str:
    if not isinstance(review_id, str) or not review_id or len(review_id) > 64:
        raise NotFound(REVIEW_NOT_FOUND)
    return review_id


def remove_review(*, actor: User | None, review_id: str, reason: object) -> None:
    """Delete the review and take its rating out of the agent's average and count; admins only."""
    admin = require_admin(actor)
    review_id = _known(review_id)
    why = clean_reason(reason)
    with session_scope() as session:
        agent_id = session.execute(select(Review.agent_id).where(Review.id == review_id)).scalar()
        if agent_id is None:
            raise NotFound(REVIEW_NOT_FOUND)
        decisions.claim_any(session, Agent, Agent.id == agent_id, values={"rating_sum": Agent.rating_sum})
        found = session.execute(select(Review.rating, Review.user_id, Review.comment, User.username)
                                .outerjoin(User, User.id == Review.user_id).where(Review.id == review_id)).first()
        if found is None or session.exec(delete(Review).where(Review.id == review_id)).rowcount != 1:
            raise NotFound(REVIEW_NOT_FOUND)
        rating, author_id, comment, author = found
        left = AGENTS.c.review_count - 1
        session.execute(update(AGENTS).where(AGENTS.c.id == agent_id).values(
            rating_sum=AGENTS.c.rating_sum - rating, review_count=left,
            avg_rating=case((left > 0, cast(AGENTS.c.rating_sum - rating, Float) / left), else_=0.0)))
        audit.record(session, actor=admin, action="review.remove", target_type="review", target_id=review_id,
                     details={"agentId": agent_id, "authorId": author_id, "author": author, "rating": rating,
                              "comment": comment[:500], "reason": why})


def remove_reply(*, actor: User | None, review_id: str, reason: object) -> None:
    """Clear the vendor's answer to the review (the vendor may answer again); admins only. 409 when there is no
    answer."""
    admin = require_admin(actor)
    review_id = _known(review_id)
    why = clean_reason(reason)
    with session_scope() as session:
        found = session.execute(select(Review.agent_id, Review.vendor_reply, User.username)
                                .outerjoin(User, User.id == Review.user_id).where(Review.id == review_id)).first()
        if found is None:
            raise NotFound(REVIEW_NOT_FOUND)
        agent_id, text, author = found
        decisions.claim(session, Review, Review.id == review_id, Review.vendor_reply.is_not(None),
                        values={"vendor_reply": None, "vendor_reply_at": None, "vendor_reply_updated_at": None},
                        conflict=NO_REPLY)
        audit.record(session, actor=admin, action="review.reply_remove", target_type="review", target_id=review_id,
                     details={"agentId": agent_id, "author": author, "reply": (text or "")[:500], "reason": why})
