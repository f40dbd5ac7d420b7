"""A vendor's answer to a review of its agent: one per review, editable, shown under it (issue 33).

Saving is one conditional write on the review: the first answer claims the empty reply (and sets when it was
given), a later save edits it; two first answers at the same moment leave one answer, the loser's text as an
edit. The reviewer is told when the answer is first given (an edit tells nobody again).
"""

from __future__ import annotations

from sqlalchemy import select

from marketplace.db import session_scope
from marketplace.models import Agent, NotificationType, Review, ReviewPublic, User
from marketplace.models.base import utcnow
from marketplace.services import decisions, notifications, reviews
from marketplace.services.errors import Forbidden, NotFound
from marketplace.services.permissions import require_user
from marketplace.services.text import required_text

MAX_REPLY = 2000
REVIEW_NOT_FOUND = "Review not found"
NOT_YOUR_AGENT = "Only this agent's vendor can answer its reviews."
REPLY_REQUIRED = "Please write your answer: it cannot be empty."
REPLY_TOO_LONG = f"Your answer must be at most {MAX_REPLY} characters."
ANSWERED_TITLE = "The vendor answered your review"


def clean_reply(value: object) -> str:
    """The answer as shown: required, trimmed, at most MAX_REPLY characters (400 otherwise)."""
    return required_text(value, field="reply", label="Answer", limit=MAX_REPLY, missing=REPLY_REQUIRED,
                         too_long=REPLY_TOO_LONG)


def reply_to_review(*, actor: User | None, review_id: str, reply: object) -> ReviewPublic:
    """Give or edit the answer to `review_id`: only the vendor of the reviewed agent (403 for anyone else, 404
    for an unknown review)."""
    user = require_user(actor)
    if not isinstance(review_id, str) or not review_id or len(review_id) > 64:
        raise NotFound(REVIEW_NOT_FOUND)
    with session_scope() as session:
        found = session.execute(
            select(Review.user_id, Agent.vendor_id, Agent.name)
            .join(Agent, Agent.id == Review.agent_id).where(Review.id == review_id)).first()
        if found is None:
            raise NotFound(REVIEW_NOT_FOUND)
        reviewer_id, vendor_id, agent_name = found
        if vendor_id != user.id:
            raise Forbidden(NOT_YOUR_AGENT)
        text = clean_reply(reply)
        now = utcnow()
        first = decisions.claim_any(session, Review, Review.id == review_id, Review.vendor_reply.is_(None),
                                    values={"vendor_reply": text, "vendor_reply_at": now,
                                            "vendor_reply_updated_at": now})
        if not first and not decisions.claim_any(session, Review, Review.id == review_id,
                                                 Review.vendor_reply.is_not(None),
                                                 values={"vendor_reply": text, "vendor_reply_updated_at": now}):
            raise NotFound(REVIEW_NOT_FOUND)  # removed meanwhile
        if first and reviewer_id is not None:
            notifications.notify(session, user_id=reviewer_id, type=NotificationType.OTHER, title=ANSWERED_TITLE,
                                 message=f"{user.username} answered your review of {agent_name}.")
        session.flush()
        return reviews.review_rows(session, reviews.select_reviews().where(Review.id == review_id))[0]
