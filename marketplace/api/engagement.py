"""Reviews, favourites and reports. Writes need a signed-in user (401 otherwise); the services validate."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response

from marketplace.api.catalog import AGENT_LIST, json_list, total_headers
from marketplace.api.deps import OptionalUser, SignedInUser, client_address, optional_user
from marketplace.models import AgentPublic, FavoriteStatus, ReportedStatus, ReportPublic, ReviewPublic
from marketplace.models.engagement import FavoriteIn, ReportIn, ReviewIn, ReviewReplyIn
from marketplace.services import favorites, reports, review_replies, reviews

router = APIRouter(prefix="/api", tags=["engagement"])


# ---- reviews --------------------------------------------------------------------------------------


@router.get("/agents/{agent_id}/reviews", response_model=list[ReviewPublic])
def list_reviews(
    agent_id: str, request: Request, limit: int = reviews.DEFAULT_LIMIT, offset: int = 0
) -> Response:
    """A live agent's reviews come from the catalog cache without reading the session (see `agent`)."""
    body, total = reviews.list_reviews_json(agent_id=agent_id, actor=lambda: optional_user(request), limit=limit,
                                            offset=offset)
    return Response(body, media_type="application/json", headers=total_headers(total))


@router.post("/agents/{agent_id}/reviews", response_model=ReviewPublic, status_code=201,
             responses={200: {"description": "the caller's earlier review was updated"}})
def post_review(agent_id: str, body: ReviewIn, user: SignedInUser, request: Request,
                response: Response) -> ReviewPublic:
    saved = reviews.submit_review(actor=user, agent_id=agent_id, rating=body.rating, comment=body.comment,
                                  address=client_address(request))
    if not saved.created:
        response.status_code = 200
    return saved.review


@router.put("/vendor/reviews/{review_id}/reply", response_model=ReviewPublic)
def reply_to_review(review_id: str, user: OptionalUser, body: ReviewReplyIn | None = None) -> ReviewPublic:
    """The agent's vendor answers a review once (`{"reply"}`; saving again edits it); the reviewer is notified.
    403 for anyone else, 400 for an empty or too long answer."""
    return review_replies.reply_to_review(actor=user, review_id=review_id, reply=body.reply if body else None)


# ---- favourites -----------------------------------------------------------------------------------


@router.get("/favorites", response_model=list[AgentPublic])
def list_favorites(user: SignedInUser, limit: int = favorites.DEFAULT_LIMIT, offset: int = 0) -> Response:
    page = favorites.list_favorites(actor=user, limit=limit, offset=offset)
    return json_list(page.items, AGENT_LIST, page.total)


@router.post("/favorites", response_model=FavoriteStatus)
def add_favorite(body: FavoriteIn, user: SignedInUser) -> FavoriteStatus:
    return favorites.add_favorite(actor=user, agent_id=body.agent_id)


@router.delete("/favorites", response_model=FavoriteStatus)
def remove_favorite(body: FavoriteIn, user: SignedInUser) -> FavoriteStatus:
    return favorites.remove_favorite(actor=user, agent_id=body.agent_id)


@router.delete("/favorites/{agent_id}", response_model=FavoriteStatus)
def remove_favorite_by_path(agent_id: str, user: SignedInUser) -> FavoriteStatus:
    return favorites.remove_favorite(actor=user, agent_id=agent_id)


@router.get("/agents/{agent_id}/favorited", response_model=FavoriteStatus)
def is_favorited(agent_id: str, user: OptionalUser) -> FavoriteStatus:
    """False for a signed-out caller (the page asks before it knows), not 401."""
    return favorites.is_favorited(actor=user, agent_id=agent_id)


# ---- reports --------------------------------------------------------------------------------------


@router.post("/agents/{agent_id}/report", response_model=ReportPublic, status_code=201)
def report(agent_id: str, body: ReportIn, user: SignedInUser, request: Request) -> ReportPublic:
    return reports.report_agent(
        actor=user, agent_id=agent_id, report_type=body.report_type, reason=body.reason, description=body.description,
        address=client_address(request),
    )


@router.get("/agents/{agent_id}/reported", response_model=ReportedStatus)
def has_reported(agent_id: str, user: OptionalUser) -> ReportedStatus:
    """False for a signed-out caller, like /favorited."""
    return reports.has_reported(actor=user, agent_id=agent_id)
