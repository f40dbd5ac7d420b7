"""/agents/{id}: the agent, its reviews, and buy / demo / favourite / review / report actions."""

from __future__ import annotations

import reflex as rx

from marketplace.components.agent_card import average_stars
from marketplace.components.image import agent_image
from marketplace.components.layout import container, page_frame
from marketplace.components.links import button_link
from marketplace.components.release_notes import release_notes
from marketplace.pages.agent_reviews import removal_dialog, review_form, review_item
from marketplace.state.agent_detail import (
    BUYERS_ONLY,
    REPORT_DESCRIPTION_MAX,
    REPORT_REASON_MAX,
    REPORT_TYPE_OPTIONS,
    AgentDetailState,
    VersionView,
)
from marketplace.state.session import SessionState

S = AgentDetailState
A = AgentDetailState.agent


def _status_badge() -> rx.Component:
    return rx.badge(
        A.status_label,
        color_scheme=rx.match(A.status, ("approved", "green"), ("rejected", "red"), "amber"),
        variant="soft", size="2", id="status-badge",
    )


def header_card() -> rx.Component:
    return rx.card(
        rx.flex(
            # Lower on a phone, so the price and Get This Agent below the header show on the first screen.
            rx.box(agent_image(A.image_url, height="100%", emoji_size="6em"), width=["100%", "100%", "280px"],
                   height=rx.breakpoints(initial="140px", md="220px"), flex_shrink="0"),
            rx.vstack(
                rx.hstack(
                    _status_badge(),
                    rx.cond(A.is_featured, rx.badge(rx.icon("sparkles", size=12), "Featured", color_scheme="amber",
                                                    variant="solid", size="2", id="featured-badge")),
                    spacing="2",
                ),
                rx.heading(A.name, size=rx.breakpoints(initial="7", md="8"), id="agent-name", as_="h1"),
                rx.hstack(
                    average_stars(A.stars, A.half_star, size=18, id="agent-stars", role="img",
                                  aria_label=f"Rated {A.rating} out of 5"),
                    rx.cond(A.review_count > 0, rx.text(A.rating, weight="bold", id="agent-rating")),
                    rx.text(rx.cond(A.review_count == 0, "No reviews yet",
                                    rx.cond(A.review_count == 1, "(1 review)", f"({A.review_count} reviews)")),
                            color_scheme="gray", id="agent-review-count"),
                    spacing="2", align="center",
                ),
                rx.text(A.short_description, size="4", color_scheme="gray"),
                rx.cond(A.vendor_name != "", rx.text("by ", rx.text.strong(A.vendor_name), size="2",
                                                     color_scheme="gray")),
                spacing="3", align="start",
            ),
            direction=rx.breakpoints(initial="column", md="row"), spacing=rx.breakpoints(initial="4", md="5"),
            width="100%",
        ),
        size=rx.breakpoints(initial="2", md="3"), width="100%",
    )


def about_card() -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.heading("About this agent", size="5", as_="h2"),
            rx.text(A.description, white_space="pre-wrap", id="agent-description"),
            rx.cond(
                A.tags.length() > 0,
                rx.hstack(
                    rx.foreach(A.tags, lambda tag: rx.badge(tag, variant="soft", radius="full", size="2")),
                    spacing="2", wrap="wrap", id="agent-tags",
                ),
            ),
            spacing="3", align="start",
        ),
        size="3", width="100%",
    )


def _version_entry(version: VersionView) -> rx.Component:
    return rx.vstack(
        rx.hstack(
            rx.heading(version.label, size="3", as_="h3", class_name="version-label"),
            rx.cond(version.current, rx.badge("Current", color_scheme="green", size="1")),
            rx.text(version.date, size="2", color_scheme="gray"),
            spacing="2", align="center", wrap="wrap",
        ),
        # Rendered on the server with raw HTML off (services/versions/notes.py): safe to insert as it is.
        rx.cond(version.notes_html != "", release_notes(version.notes_html)),
        rx.cond(version.files != "", rx.text(version.files, size="1", color_scheme="gray")),
        # Buyers with access download the current version and the two before it.
        rx.cond(S.bought & version.downloadable,
                rx.button(rx.cond(S.version_downloading == version.label, rx.spinner(size="1"),
                                  rx.icon("download", size=14)),
                          f"Download {version.label}", size="1", variant="soft", type="button",
                          on_click=S.download_version(version.label), disabled=S.version_downloading != "",
                          class_name="download-version")),
        spacing="1", align="start", width="100%", class_name="changelog-entry",
    )


def changelog_card() -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.heading("Changelog", size="5", as_="h2", id="changelog-heading"),
            rx.foreach(S.versions, _version_entry),
            spacing="3", align="start", width="100%",
        ),
        size="3", width="100%", id="changelog",
    )


def reviews_card() -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.heading("Reviews (", A.review_count, ")", size="5", id="reviews-heading", as_="h2"),
            rx.cond(
                SessionState.signed_in,
                rx.cond(
                    S.is_owner,
                    rx.callout("This is your agent: customers' reviews appear here, and you can answer each once.",
                               icon="info", size="1"),
                    rx.cond(S.may_review, review_form(),
                            rx.callout(BUYERS_ONLY, icon="info", size="1", id="review-buyers-only")),
                ),
                rx.text(rx.link("Sign in", href="/login"), " to write a review.", size="2", color_scheme="gray"),
            ),
            rx.cond(
                S.reviews.length() > 0,
                rx.vstack(rx.foreach(S.reviews, lambda review: review_item(review, A.vendor_name)), spacing="0",
                          width="100%", id="reviews-list"),
                rx.text("No reviews yet. Be the first to review this agent!", color_scheme="gray", size="2",
                        id="no-reviews"),
            ),
            spacing="4", align="start", width="100%",
        ),
        size="3", width="100%",
    )


def report_dialog() -> rx.Component:
    return rx.dialog.root(
        rx.dialog.content(
            rx.dialog.title("Report this agent"),
            rx.dialog.description("Tell us what is wrong. Our team reviews every report.", size="2",
                                  color_scheme="gray"),
            rx.form(
                rx.vstack(
                    rx.text("Issue type", size="2", weight="medium"),
                    rx.select.root(
                        rx.select.trigger(placeholder="Select an issue type", id="report-type", width="100%",
                                          aria_label="Issue type"),
                        rx.select.content(*[rx.select.item(o.label, value=o.value) for o in REPORT_TYPE_OPTIONS],
                                          position="popper"),
                        value=S.report_type, on_change=S.set_report_type,
                    ),
                    rx.text("Reason", size="2", weight="medium"),
                    rx.input(id="report-reason", name="reason", placeholder="Briefly, what is the problem?",
                             value=S.report_reason, on_change=S.set_report_reason, max_length=REPORT_REASON_MAX,
                             width="100%"),
                    rx.text("Details (optional)", size="2", weight="medium"),
                    rx.text_area(id="report-description", name="description",
                                 placeholder="Anything else we should know?", value=S.report_description,
                                 on_change=S.set_report_description, max_length=REPORT_DESCRIPTION_MAX, rows="3",
                                 width="100%"),
                    rx.hstack(
                        rx.dialog.close(rx.button("Cancel", variant="soft", color_scheme="gray", type="button")),
                        rx.button(rx.cond(S.report_submitting, "Submitting...", "Submit Report"), type="submit",
                                  color_scheme="red", disabled=S.report_submitting, id="submit-report"),
                        justify="end", width="100%", spacing="3", padding_top="0.5em",
                    ),
                    spacing="2", width="100%",
                ),
                on_submit=S.submit_report, no_validate=True, width="100%",
            ),
            max_width="480px",
        ),
        open=S.report_open,
        on_open_change=S.set_report_open,
    )


def action_card() -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.hstack(
                rx.heading(rx.el.p(A.price), size="8", id="agent-price", as_child=True),
                rx.cond(~A.is_free, rx.text(A.price_suffix, color_scheme="gray", id="agent-price-suffix")),
                align="baseline", spacing="1",
            ),
            rx.cond(A.trial_offer != "", rx.text(A.trial_offer, size="2", weight="medium", color_scheme="green",
                                                 high_contrast=True, id="agent-trial-offer")),
            rx.cond(
                S.bought,
                rx.button(rx.icon("circle-check", size=16), "Already Bought", disabled=True, size="3", width="100%",
                          id="already-bought"),
                button_link(rx.icon("shopping-cart", size=16), "Get This Agent", href=f"/checkout/{A.id}", size="3",
                            width="100%", id="get-agent"),
            ),
            rx.cond(
                A.demo_url != "",
                button_link(rx.icon("external-link", size=16), "Try Demo", href=A.demo_url, is_external=True,
                            variant="outline", size="3", width="100%", id="try-demo"),
            ),
            rx.hstack(
                rx.button(
                    rx.icon("heart", size=16, fill=rx.cond(S.is_favorited, "currentColor", "none")),
                    rx.cond(S.is_favorited, "Favorited", "Add to Favorites"),
                    variant=rx.cond(S.is_favorited, "soft", "outline"),
                    color_scheme=rx.cond(S.is_favorited, "red", "gray"),
                    size="2", flex="1", on_click=S.toggle_favorite, disabled=S.favorite_busy, id="favorite",
                    aria_pressed=rx.cond(S.is_favorited, "true", "false"),
                ),
                rx.cond(
                    SessionState.signed_in & ~S.is_owner,
                    rx.button(
                        rx.icon("flag", size=16), rx.cond(S.has_reported, "Reported", "Report"),
                        variant="outline", color_scheme="gray", size="2", disabled=S.has_reported,
                        on_click=S.set_report_open(True), id="report",
                    ),
                ),
                spacing="2", width="100%",
            ),
            rx.separator(size="4"),
            rx.vstack(
                *[rx.hstack(rx.icon(icon, size=14, color="var(--green-9)"), rx.text(text, size="2"), align="center")
                  for icon, text in (("shield-check", "30-day money-back guarantee"),
                                     ("refresh-cw", "Free updates for 1 year"),
                                     ("download", "Instant download after purchase"))],
                spacing="2",
            ),
            spacing="3", width="100%",
        ),
        size="3", width="100%",
    )


def info_card() -> rx.Component:
    def row(label: str, value: rx.Var, row_id: str) -> rx.Component:
        return rx.hstack(rx.text(label, color_scheme="gray", size="2"), rx.spacer(),
                         rx.text(value, size="2", weight="medium", id=row_id), width="100%")

    return rx.card(
        rx.vstack(
            rx.heading("Agent Information", size="4", as_="h2"),
            row("Category", A.category_name, "info-category"),
            row("Created", A.created, "info-created"),
            row("Last updated", A.updated, "info-updated"),
            rx.cond(A.scanned != "", rx.hstack(rx.icon("shield-check", size=16, color=rx.color("green", 11)),
                                               rx.text(A.scanned, size="2", id="info-scanned"), spacing="2")),
            spacing="3", width="100%",
        ),
        size="3", width="100%",
    )


def not_found() -> rx.Component:
    return rx.center(
        rx.card(
            rx.vstack(
                rx.text("🤖", font_size="3em"),
                rx.heading("Agent Not Found", size="6", as_="h1"),
                rx.text("The agent you're looking for doesn't exist or is no longer available.", color_scheme="gray",
                        align="center"),
                button_link(rx.icon("arrow-left", size=16), "Back to Agents", href="/agents"),
                align="center", spacing="3", padding="1em",
            ),
            size="3", max_width="480px", width="100%", id="agent-not-found",
        ),
        padding_y="4em", padding_x="1em",
    )


def loading_view() -> rx.Component:
    return rx.grid(
        rx.vstack(rx.skeleton(height="260px", width="100%"), rx.skeleton(height="160px", width="100%"), spacing="4",
                  grid_column=rx.breakpoints(initial="span 1", md="span 2")),
        rx.skeleton(height="300px", width="100%"),
        columns=rx.breakpoints(initial="1", md="3"), spacing="5", width="100%", id="agent-loading",
    )


def detail() -> rx.Component:
    return rx.vstack(
        rx.link(rx.hstack(rx.icon("arrow-left", size=16), rx.text("Back to Agents"), align="center", spacing="1"),
                href="/agents", size="2", color_scheme="gray"),
        rx.box(
            rx.box(header_card(), grid_area="header"),
            # The buying side comes right after the header in the page order: on a phone (one column) the
            # price and Get This Agent show before the description and the reviews, not after them all.
            # The side column's box dissolves on a phone so its two cards take their own places in the grid.
            rx.vstack(rx.box(action_card(), grid_area="action", width="100%"),
                      rx.box(info_card(), grid_area="info", width="100%"),
                      spacing="5", width="100%", grid_area="side", align_self="start",
                      display=rx.breakpoints(initial="contents", md="flex")),
            rx.vstack(about_card(), rx.cond(S.versions.length() > 0, changelog_card()), spacing="5",
                      width="100%", grid_area="about"),
            rx.box(reviews_card(), grid_area="reviews", align_self="start"),
            display="grid", gap="var(--space-5)", width="100%",
            grid_template_columns=rx.breakpoints(initial="minmax(0, 1fr)", md="minmax(0, 2fr) minmax(0, 1fr)"),
            # The last row takes whatever height the side column needs beyond the first two.
            grid_template_rows=rx.breakpoints(initial="none", md="auto auto 1fr"),
            grid_template_areas=rx.breakpoints(
                initial='"header" "action" "about" "reviews" "info"',
                md='"header side" "about side" "reviews side"'),
            class_name="agent-layout",
        ),
        report_dialog(),
        removal_dialog(),
        spacing="4", width="100%", id="agent-detail",
    )


def agent_detail_page() -> rx.Component:
    return page_frame(container(rx.cond(S.loading, loading_view(), rx.cond(S.found, detail(), not_found()))),
                      pending=container(loading_view()))
