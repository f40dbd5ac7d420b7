"""The pieces of /agents/{id}'s Reviews card: the review form, each review with the vendor's answer, the vendor's
Answer / Edit answer, and an admin's removal with a reason (the card itself: pages/agent_detail.py)."""

from __future__ import annotations

import reflex as rx

from marketplace.components.agent_card import stars
from marketplace.components.catalog import option_select
from marketplace.state.agent_detail import (
    RATING_CHOICES,
    REMOVAL_REASON_MAX,
    REVIEW_COMMENT_MAX,
    REVIEW_REPLY_MAX,
    AgentDetailState,
    ReviewView,
)
from marketplace.state.session import SessionState

S = AgentDetailState


def review_form() -> rx.Component:
    blank = S.review_comment.to(str).strip() == ""
    return rx.form(
        rx.vstack(
            rx.heading("Write a Review", size="4", as_="h3"),
            rx.hstack(
                rx.text("Rating", size="2", weight="medium"),
                rx.box(option_select("review-rating", S.review_rating, S.set_review_rating, RATING_CHOICES,
                                     label="Rating", width="140px")),
                align="center", spacing="3",
            ),
            rx.text_area(id="review-comment", name="comment", placeholder="Share your experience with this agent...",
                         value=S.review_comment, on_change=S.set_review_comment, max_length=REVIEW_COMMENT_MAX,
                         rows="4", width="100%", aria_label="Your review"),
            rx.button(rx.cond(S.review_submitting, "Submitting...", "Submit Review"), type="submit",
                      disabled=blank | S.review_submitting, id="submit-review"),
            spacing="3", align="start", width="100%",
        ),
        on_submit=S.submit_review, no_validate=True, width="100%", id="review-form",
    )


def reply_form() -> rx.Component:
    return rx.form(
        rx.vstack(
            rx.text_area(id="reply-text", name="reply", placeholder="Answer this review...", value=S.reply_draft,
                         on_change=S.set_reply_draft, max_length=REVIEW_REPLY_MAX, rows="3", width="100%",
                         aria_label="Your answer"),
            rx.hstack(
                rx.button("Cancel", type="button", variant="soft", color_scheme="gray", size="2",
                          on_click=S.cancel_reply),
                rx.button(rx.cond(S.reply_saving, "Saving...", "Publish Answer"), type="submit", size="2",
                          disabled=(S.reply_draft.to(str).strip() == "") | S.reply_saving, id="save-reply"),
                spacing="2",
            ),
            spacing="2", width="100%", align="start",
        ),
        on_submit=S.save_reply, no_validate=True, width="100%", id="reply-form",
    )


def admin_actions(review: ReviewView) -> rx.Component:
    """An admin's Remove review / Remove answer; each asks for a reason (removal_dialog)."""
    return rx.hstack(
        rx.button(rx.icon("trash-2", size=14), "Remove review", variant="ghost", color_scheme="red", size="1",
                  on_click=S.open_removal(review.id, "review"), class_name="remove-review"),
        rx.cond(review.reply != "",
                rx.button(rx.icon("message-square-x", size=14), "Remove answer", variant="ghost", color_scheme="red",
                          size="1", on_click=S.open_removal(review.id, "answer"), class_name="remove-reply")),
        spacing="3", margin_top="0.25em", wrap="wrap",
    )


def removal_dialog() -> rx.Component:
    return rx.dialog.root(
        rx.dialog.content(
            rx.dialog.title(rx.cond(S.removal_what == "answer", "Remove the vendor's answer", "Remove this review")),
            rx.dialog.description("Give the reason: it is kept in the audit log.", size="2", color_scheme="gray"),
            rx.form(
                rx.vstack(
                    rx.text_area(id="removal-reason", name="reason", placeholder="Reason", value=S.removal_reason,
                                 on_change=S.set_removal_reason, max_length=REMOVAL_REASON_MAX, rows="3",
                                 width="100%", aria_label="Reason"),
                    rx.hstack(
                        rx.dialog.close(rx.button("Cancel", variant="soft", color_scheme="gray", type="button")),
                        rx.button(rx.cond(S.removal_saving, "Removing...", "Remove"), type="submit",
                                  color_scheme="red", id="confirm-removal",
                                  disabled=(S.removal_reason.to(str).strip() == "") | S.removal_saving),
                        justify="end", width="100%", spacing="3",
                    ),
                    spacing="3", width="100%",
                ),
                on_submit=S.confirm_removal, no_validate=True, width="100%",
            ),
            max_width="480px",
        ),
        open=S.removal_review_id != "",
        on_open_change=S.set_removal_open,
    )


def vendor_reply(review: ReviewView, vendor_name: str | rx.Var[str]) -> rx.Component:
    """The vendor's answer under the review; for the agent's vendor, Answer / Edit answer and its form."""
    answer = rx.box(
        rx.text("Answer from ", rx.text.strong(vendor_name), " · ", review.reply_date, size="1",
                color_scheme="gray"),
        rx.text(review.reply, size="2", white_space="pre-wrap", class_name="vendor-reply-text"),
        padding="0.5em 0.75em", margin_top="0.25em", border_left="3px solid var(--accent-8)",
        background="var(--gray-a2)", width="100%", class_name="vendor-reply",
    )
    return rx.fragment(
        rx.cond(review.reply != "", answer),
        rx.cond(SessionState.role == "admin", admin_actions(review)),
        rx.cond(
            S.is_owner,
            rx.cond(
                S.reply_review_id == review.id,
                reply_form(),
                rx.button(rx.icon("message-square-reply", size=14),
                          rx.cond(review.reply != "", "Edit answer", "Answer"),
                          variant="ghost", size="1", margin_top="0.25em", on_click=S.open_reply(review.id),
                          class_name="answer-review"),
            ),
        ),
    )


def review_item(review: ReviewView, vendor_name: str | rx.Var[str]) -> rx.Component:
    return rx.box(
        rx.hstack(
            rx.avatar(fallback=review.initial, size="2", radius="full"),
            rx.vstack(
                rx.hstack(
                    rx.text(review.author, weight="bold", size="2"),
                    rx.cond(review.verified, rx.badge(rx.icon("badge-check", size=12), "Verified purchase",
                                                      color_scheme="green", variant="soft",
                                                      class_name="verified-purchase")),
                    spacing="2", align="center", wrap="wrap",
                ),
                rx.hstack(stars(review.rating), rx.text(review.date, size="1", color_scheme="gray"), spacing="2",
                          align="center"),
                rx.text(review.comment, size="2", white_space="pre-wrap", class_name="review-comment"),
                vendor_reply(review, vendor_name),
                spacing="1", align="start", width="100%",
            ),
            spacing="3", align="start", width="100%",
        ),
        padding_y="0.75em", border_top="1px solid var(--gray-a4)", width="100%", class_name="review-item",
    )
