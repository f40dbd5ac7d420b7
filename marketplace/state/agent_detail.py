"""/agents/{id}: one agent with its reviews, and what a signed-in user can do there.

Every action re-reads the signed-in user from the session cookie and calls the service; the
service decides (visibility, own-agent rules, one report per user...). Toast texts are the spec's.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from datetime import datetime
from typing import Any
from urllib.parse import quote

import reflex as rx
from reflex.event import EventSpec

from marketplace.models import AgentPublic, AgentStatus, AgentVersionPublic, ReportType, ReviewPublic
from marketplace.services import agent_page, favorites, images, names, reports, review_replies, views
from marketplace.services import reviews as review_service
from marketplace.services.admin import reviews as review_removal
from marketplace.services.catalog import download_url
from marketplace.services.downloads import NO_ACCESS, archive_name
from marketplace.services.errors import Conflict, Forbidden, NotFound, TooManyRequests
from marketplace.services.seo import page_head
from marketplace.services.versions import history
from marketplace.state import blocking
from marketplace.state.browser import download_js
from marketplace.state.catalog import Option, price_parts, rating_label, star_fill, trial_offer
from marketplace.state.display import logged_out_again
from marketplace.state.forms import take_submitted
from marketplace.state.service_calls import Toast, attempt
from marketplace.state.session import ViewerMixin
from marketplace.state.vendors.wizard_rows import size_label

REPORT_TYPE_LABELS = {
    ReportType.BROKEN.value: "Agent Not Working",
    ReportType.MISLEADING.value: "Misleading Description",
    ReportType.INAPPROPRIATE.value: "Inappropriate Content",
    ReportType.SPAM.value: "Spam/Low Quality",
    ReportType.OTHER.value: "Other Issue",
}
REPORT_TYPE_OPTIONS = [Option(value=v, label=label) for v, label in REPORT_TYPE_LABELS.items()]
RATING_CHOICES = [Option(value=str(n), label=f"{n} star{'s' if n > 1 else ''}") for n in range(5, 0, -1)]
STATUS_LABELS = {AgentStatus.APPROVED.value: "Approved", AgentStatus.REJECTED.value: "Rejected"}
# The services' input limits, for the page's max_length (pages take them from here, not from the services).
REVIEW_COMMENT_MAX = review_service.MAX_COMMENT
REVIEW_REPLY_MAX = review_replies.MAX_REPLY
REMOVAL_REASON_MAX = review_removal.MAX_REASON
BUYERS_ONLY = review_service.NOT_A_BUYER  # shown instead of the form to a signed-in customer who did not buy
REPORT_REASON_MAX = reports.MAX_REASON
REPORT_DESCRIPTION_MAX = reports.MAX_DESCRIPTION
SIGN_IN = ("Please sign in", "You need to be signed in to add favorites")


SCANNED = "Scanned {date}: no threats found"
VERSION_GONE = history.VERSION_GONE  # a Changelog download of a version no longer kept (404)


def long_date(moment: datetime) -> str:
    return f"{moment:%B} {moment.day}, {moment.year}"


@dataclasses.dataclass
class AgentView:
    id: str = ""
    name: str = ""
    short_description: str = ""
    description: str = ""
    price: str = ""
    price_suffix: str = ""  # "/month" or " one-time" (state.catalog.price_parts)
    is_free: bool = False
    trial_offer: str = ""  # 'Free for 7 days, then $29.99/month', or '' (state.catalog.trial_offer)
    image_url: str = ""
    demo_url: str = ""
    tags: list[str] = dataclasses.field(default_factory=list)
    is_featured: bool = False
    status: str = ""
    status_label: str = ""
    rating: str = "0.0"
    stars: int = 0  # full stars of the average (state.catalog.star_fill)
    half_star: bool = False
    review_count: int = 0
    vendor_id: str = ""
    vendor_name: str = ""
    category_name: str = ""
    category_emoji: str = ""
    created: str = ""
    updated: str = ""
    scanned: str = ""  # 'Scanned {date}: no threats found' when every file's last scan was clean


@dataclasses.dataclass
class VersionView:
    """One entry of the Changelog: `notes_html` is the release notes rendered safe on the server
    (services/versions/notes.py: no raw HTML kept), the same HTML bots get."""

    label: str = ""
    date: str = ""
    notes_html: str = ""
    files: str = ""  # 'agent.py (1.2 KB), README.md (300 B)'
    current: bool = False
    downloadable: bool = False  # among the newest `history.KEPT`: a buyer with access may still download it


def version_view(version: AgentVersionPublic, *, downloadable: bool = False) -> VersionView:
    return VersionView(label=version.label, date=long_date(version.released_at), notes_html=version.release_notes_html,
                       files=", ".join(f"{f.filename} ({size_label(f.size_bytes)})" for f in version.files),
                       current=version.current, downloadable=downloadable)


@dataclasses.dataclass
class ReviewView:
    id: str = ""
    rating: int = 0
    author: str = ""
    initial: str = ""
    date: str = ""
    comment: str = ""
    verified: bool = False
    reply: str = ""  # the vendor's answer ("" when none)
    reply_date: str = ""


def agent_view(agent: AgentPublic) -> AgentView:
    avg = rating_label(agent.avg_rating)
    return AgentView(
        id=agent.id,
        name=agent.name,
        short_description=agent.short_description,
        description=agent.description,
        price=(parts := price_parts(agent.price, agent.pricing_model))[0],
        price_suffix=parts[1],
        is_free=parts[0] == "Free",
        trial_offer=trial_offer(agent),
        image_url=images.displayable_image_url(agent.image_url),
        demo_url=agent.demo_url or "",
        tags=list(agent.tags),
        is_featured=agent.is_featured,
        status=agent.status,
        status_label=STATUS_LABELS.get(agent.status, "Pending"),
        rating=avg,
        stars=(fill := star_fill(agent.avg_rating))[0],
        half_star=fill[1],
        review_count=agent.review_count,
        vendor_id=agent.vendor_id or "",
        vendor_name=agent.vendor.username if agent.vendor else "",
        category_name=agent.category.name if agent.category else "Uncategorized",
        category_emoji=agent.category.emoji if agent.category else "",
        created=long_date(agent.created_at),
        updated=long_date(agent.updated_at),
        scanned=SCANNED.format(date=long_date(agent.scanned_at)) if agent.scanned_at else "",
    )


def review_view(review: ReviewPublic) -> ReviewView:
    author = names.display_name(first_name=review.user.first_name, last_name=None, username=review.user.username,
                                short=True) if review.user else "Former user"
    return ReviewView(
        id=review.id, rating=review.rating, author=author, initial=author[:1].upper(),
        date=long_date(review.created_at), comment=review.comment, verified=review.verified_purchase,
        reply=review.vendor_reply.text if review.vendor_reply else "",
        reply_date=long_date(review.vendor_reply.created_at) if review.vendor_reply else "",
    )


class AgentDetailState(ViewerMixin, rx.State):
    loading: bool = True
    found: bool = False
    agent: AgentView = AgentView()
    reviews: list[ReviewView] = []
    versions: list[VersionView] = []  # the Changelog, newest first
    is_favorited: bool = False
    has_reported: bool = False
    bought: bool = False
    may_review: bool = False
    is_owner: bool = False
    version_downloading: str = ""  # the label of the Changelog download in progress
    favorite_busy: bool = False
    # review form
    review_rating: str = "5"
    review_comment: str = ""
    review_submitting: bool = False
    # the owner's answer to one review at a time
    reply_review_id: str = ""
    reply_draft: str = ""
    reply_saving: bool = False
    # an admin's removal of a review ("review") or of its answer ("answer"), with a reason
    removal_review_id: str = ""
    removal_what: str = ""
    removal_reason: str = ""
    removal_saving: bool = False
    # report dialog
    report_open: bool = False
    report_type: str = ""
    report_reason: str = ""
    report_description: str = ""
    report_submitting: bool = False

    @rx.var
    def page_title(self) -> str:
        """The tab's title: the one the server's HTML carries (services/seo/page_head.py)."""
        if self.found:
            return page_head.agent_title(name=self.agent.name, short_description=self.agent.short_description)
        return f"{'AI Agent' if self.loading else 'Agent Not Found'} | {page_head.SITE_NAME}"

    def _agent_id(self) -> str:
        """The {id} of /agents/{id}, from the address the browser is on."""
        parts = [p for p in self.router.url.path.split("/") if p]
        return parts[1] if len(parts) >= 2 and parts[0] == "agents" else ""

    async def _load(self, agent_id: str) -> str | None:
        """Load the page's data; the signed-in user's id (None when signed out)."""
        user = await self.viewer()
        try:
            page = await blocking.run(agent_page.agent_page, agent_id=agent_id, actor=user)
        except NotFound:
            self.found = False
            return None
        self.agent = agent_view(page.agent)
        self.reviews = [review_view(r) for r in page.reviews.items]
        self.versions = [version_view(v, downloadable=i < history.KEPT) for i, v in enumerate(page.versions)]
        self.is_favorited, self.has_reported, self.bought = page.is_favorited, page.has_reported, page.bought
        self.may_review = page.may_review
        self.is_owner = user is not None and page.agent.vendor_id == user.id
        self.found = True
        return user.id if user else None

    @rx.event
    def download_version(self, label: str) -> EventSpec | None:
        """A buyer's download of a version from the Changelog (`?version=`): the server decides whether it may
        still be downloaded and answers 403/404 otherwise, said in a toast."""
        if self.version_downloading or not label:
            return None
        self.version_downloading = label
        return rx.call_script(download_js(f"{download_url(self.agent.id)}?version={quote(label)}",
                                          archive_name(self.agent.name)),
                              callback=AgentDetailState.version_downloaded)

    @rx.event
    def version_downloaded(self, result: dict[str, Any]) -> EventSpec | list[EventSpec]:
        label, self.version_downloading = self.version_downloading, ""
        if result.get("ok"):
            return rx.toast("Download started", description=f"Downloading version {label} of {self.agent.name}...")
        status = result.get("status")
        if status == 401:
            return logged_out_again()
        refusals: dict[object, str] = {403: NO_ACCESS, 404: VERSION_GONE.format(label=label)}
        description = refusals.get(status, "Failed to download file.")
        return rx.toast.error("Download failed", description=description)

    def _reset_forms(self) -> None:
        self.review_rating, self.review_comment, self.review_submitting = "5", "", False
        self.report_open, self.report_type, self.report_reason, self.report_description = False, "", "", ""
        self.report_submitting = self.favorite_busy = False
        self.reply_review_id, self.reply_draft, self.reply_saving = "", "", False
        self.removal_review_id, self.removal_what, self.removal_reason, self.removal_saving = "", "", "", False

    @rx.event
    async def on_load(self) -> AsyncIterator[None]:
        self._reset_forms()
        agent_id = self._agent_id()
        if agent_id != self.agent.id:  # another agent than last time: do not flash the old one
            self.agent, self.reviews, self.versions, self.found = AgentView(), [], [], False
            self.loading = True
            yield
        viewer = await self._load(agent_id)
        self.loading = False
        if self.found:
            self._count_view(viewer)

    def _count_view(self, user_id: str | None) -> None:
        """Count this page view for Most Viewed, on a worker thread: the page never waits for it."""
        visitor = views.visitor_key(user_id=user_id, client_token=self.router.session.client_token)
        views.record_view_soon(agent_id=self.agent.id, visitor=visitor)

    # -- favourite --

    @rx.event
    async def toggle_favorite(self) -> Any:
        user = await self.viewer()
        if user is None:
            return rx.toast.error(SIGN_IN[0], description=SIGN_IN[1])
        adding = not self.is_favorited
        self.favorite_busy = True
        change = favorites.add_favorite if adding else favorites.remove_favorite
        failed = Toast(fallback=f"Failed to {'add to' if adding else 'remove from'} favorites. Please try again.",
                       reasons=False)
        try:
            done = await attempt(failed, change, actor=user, agent_id=self.agent.id)
        finally:
            self.favorite_busy = False
        if done.signed_out:
            return rx.toast.error(SIGN_IN[0], description=SIGN_IN[1])
        if done.failed:
            return done.events
        self.is_favorited = done.value.is_favorited
        if adding:
            return rx.toast("Added to favorites", description=f"{self.agent.name} is now in your favorites.")
        return rx.toast("Removed from favorites", description=f"{self.agent.name} was removed from your favorites.")

    # -- review --

    @rx.event
    def set_review_rating(self, value: str) -> None:
        self.review_rating = value

    @rx.event
    def set_review_comment(self, value: str) -> None:
        self.review_comment = value

    @rx.event
    async def submit_review(self, form: dict | None = None) -> AsyncIterator[Any]:
        take_submitted(self, form, {"comment": "review_comment"})
        if not self.review_comment.strip() or self.review_submitting:
            return
        self.review_submitting = True
        yield
        done = await attempt(Toast(fallback="Failed to submit review. Please try again.",
                                   reasons=(TooManyRequests, Forbidden)),
                             review_service.submit_review, actor=await self.viewer(), agent_id=self.agent.id,
                             rating=self.review_rating, comment=self.review_comment, address=self._client_address())
        if done.failed:
            self.review_submitting = False
            yield done.events
            return
        self.review_rating, self.review_comment, self.review_submitting = "5", "", False
        await self._load(self.agent.id)
        yield rx.toast("Review submitted", description="Thank you for your feedback!")

    # -- the vendor's answer --

    @rx.event
    def open_reply(self, review_id: str) -> None:
        """Open the answer form under one review, holding its current answer to edit."""
        found = next((r for r in self.reviews if r.id == review_id), None)
        if found is not None and self.is_owner:
            self.reply_review_id, self.reply_draft = found.id, found.reply

    @rx.event
    def cancel_reply(self) -> None:
        self.reply_review_id, self.reply_draft = "", ""

    @rx.event
    def set_reply_draft(self, value: str) -> None:
        self.reply_draft = value

    @rx.event
    async def save_reply(self, form: dict | None = None) -> AsyncIterator[Any]:
        take_submitted(self, form, {"reply": "reply_draft"})
        if not self.reply_review_id or self.reply_saving:
            return
        self.reply_saving = True
        yield
        done = await attempt(Toast("Answer not saved", "Failed to save your answer. Please try again."),
                             review_replies.reply_to_review, actor=await self.viewer(),
                             review_id=self.reply_review_id, reply=self.reply_draft)
        self.reply_saving = False
        if done.failed:
            yield done.events
            return
        self.reply_review_id, self.reply_draft = "", ""
        await self._load(self.agent.id)
        yield rx.toast("Answer published", description="The reviewer has been notified.")

    # -- an admin's removal (the service lets admins only) --

    @rx.event
    def open_removal(self, review_id: str, what: str) -> None:
        if what in ("review", "answer") and any(r.id == review_id for r in self.reviews):
            self.removal_review_id, self.removal_what, self.removal_reason = review_id, what, ""

    @rx.event
    def set_removal_open(self, value: bool) -> None:
        if not value:
            self.removal_review_id, self.removal_what, self.removal_reason = "", "", ""

    @rx.event
    def set_removal_reason(self, value: str) -> None:
        self.removal_reason = value

    @rx.event
    async def confirm_removal(self, form: dict | None = None) -> AsyncIterator[Any]:
        take_submitted(self, form, {"reason": "removal_reason"})
        if not self.removal_review_id or self.removal_saving:
            return
        answer = self.removal_what == "answer"
        self.removal_saving = True
        yield
        done = await attempt(Toast("Not removed"),
                             review_removal.remove_reply if answer else review_removal.remove_review,
                             actor=await self.viewer(), review_id=self.removal_review_id, reason=self.removal_reason)
        self.removal_saving = False
        if done.failed:
            yield done.events
            return
        self.removal_review_id, self.removal_what, self.removal_reason = "", "", ""
        await self._load(self.agent.id)
        yield rx.toast("Answer removed" if answer else "Review removed",
                       description="The removal and its reason are in the audit log.")

    # -- report --

    @rx.event
    def set_report_open(self, value: bool) -> None:
        self.report_open = value and not self.has_reported
        if not value:
            self.report_type, self.report_reason, self.report_description = "", "", ""

    @rx.event
    def set_report_type(self, value: str) -> None:
        self.report_type = value

    @rx.event
    def set_report_reason(self, value: str) -> None:
        self.report_reason = value

    @rx.event
    def set_report_description(self, value: str) -> None:
        self.report_description = value

    @rx.event
    async def submit_report(self, form: dict | None = None) -> AsyncIterator[Any]:
        take_submitted(self, form, {"reason": "report_reason", "description": "report_description"})
        if not self.report_type or not self.report_reason.strip():
            yield rx.toast.error("Missing information",
                                 description="Please select a report type and provide a reason.")
            return
        self.report_submitting = True
        yield
        done = await attempt(
            Toast("Report failed", "Failed to submit report"), reports.report_agent,
            actor=await self.viewer(), agent_id=self.agent.id, report_type=self.report_type,
            reason=self.report_reason, description=self.report_description.strip() or None,
            address=self._client_address(),
        )
        if done.failed:
            self.report_submitting = False
            if isinstance(done.error, Conflict):  # reported earlier (another tab): the button turns into 'Reported'
                self.has_reported, self.report_open = True, False
            yield done.events
            return
        self.has_reported, self.report_open, self.report_submitting = True, False, False
        self.report_type, self.report_reason, self.report_description = "", "", ""
        yield rx.toast("Report submitted", description="Our team will review it shortly")
