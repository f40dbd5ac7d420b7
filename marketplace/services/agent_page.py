"""What `/agents/{id}` shows, read at once: the agent, its first page of reviews and the viewer's marks.

The page used to ask five services on five worker-thread hops (seven statements in four transactions, each
re-checking that the agent is visible). Here the agent and its reviews come from the catalog's per-version cache
for a live agent (`catalog.get_agent`, `reviews.list_reviews_json`: no statement once cached), and whether the
viewer favourited, reported or owns it is one statement (issue 21).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import exists, select

from marketplace.db import autocommit_scope
from marketplace.models import AgentPublic, AgentVersionPublic, Favorite, Purchase, Report, ReviewPage, User
from marketplace.services import access, catalog, reviews
from marketplace.services.versions import history


@dataclass(frozen=True)
class AgentPage:
    agent: AgentPublic
    reviews: ReviewPage
    is_favorited: bool = False
    has_reported: bool = False
    bought: bool = False
    may_review: bool = False  # holds or held paid access (the review rule, services/reviews.py `bought`)
    versions: list[AgentVersionPublic] = field(default_factory=list)  # a live agent's changelog, newest first


def agent_page(*, agent_id: str, actor: User | None) -> AgentPage:
    """The agent as `actor` may see it (NotFound otherwise, as `catalog.get_agent`), its newest reviews and,
    for a signed-in viewer, their favourite, report and purchase marks and whether they may review it."""
    agent = catalog.get_agent(agent_id=agent_id, actor=actor)
    items, total = reviews.list_reviews_json(agent_id=agent.id, actor=lambda: actor)
    page = ReviewPage(items=reviews.REVIEW_LIST.validate_json(items), total=total)
    changelog = history.live_versions_json(agent.id)  # cached like the agent; None unless it is live
    versions = history.VERSIONS.validate_json(changelog) if changelog else []
    if actor is None:
        return AgentPage(agent=agent, reviews=page, versions=versions)
    marks = select(
        exists().where(Favorite.user_id == actor.id, Favorite.agent_id == agent.id),
        exists().where(Report.user_id == actor.id, Report.agent_id == agent.id),
        exists().where(Purchase.user_id == actor.id, Purchase.agent_id == agent.id, access.active()),
        reviews.bought(actor.id, agent.id),
    )
    with autocommit_scope() as session:
        favorited, reported, bought, may_review = session.execute(marks).one()
    return AgentPage(agent=agent, reviews=page, is_favorited=bool(favorited), has_reported=bool(reported),
                     bought=bool(bought), may_review=bool(may_review), versions=versions)
