"""The Approvals tab of /admin: Pending / Approved / Rejected sub-tabs, details with the vendor, Reject Agent."""

from __future__ import annotations

import reflex as rx
from reflex.vars import ArrayVar, ObjectVar, Var

from marketplace.components.empty_state import empty_state
from marketplace.components.image import agent_image
from marketplace.components.release_notes import release_notes
from marketplace.components.tabs import TabSpec, tab_view
from marketplace.pages.admin.widgets import card_list, decision_buttons, details_dialog, fact, reason_dialog
from marketplace.state.admin.approvals import REJECT, ChangeView, FileView, PendingCard, ReviewedCard
from marketplace.state.admin.approvals import ApprovedAgentsState as AP
from marketplace.state.admin.approvals import PendingAgentsState as P
from marketplace.state.admin.approvals import RejectedAgentsState as RJ

REJECT_NOTE = "This message will be sent to the vendor as a notification"


def _meta(icon: str, text: Var | str, **props: object) -> rx.Component:
    return rx.hstack(rx.icon(icon, size=14, color="var(--gray-10)", flex_shrink="0"),
                     rx.text(text, size="2", color_scheme="gray", **props), spacing="1", align="center",
                     min_width="0")


# --- pending ------------------------------------------------------------------------------------------------


def _change(change: ObjectVar[ChangeView]) -> rx.Component:
    """'Price: $19.00 per month -> $24.00 per month', the live value struck through."""
    return rx.text(
        rx.text(change.label, ": ", weight="bold", as_="span"),
        rx.text(change.old, as_="span", color="var(--red-11)", text_decoration="line-through",
                class_name="change-old"),
        rx.text(" → ", as_="span", aria_label="becomes"),
        rx.text(change.new, as_="span", color="var(--green-11)", class_name="change-new"),
        size="1", white_space="pre-wrap", word_break="break-word", class_name="changed-field",
    )


def _changes(card: ObjectVar[PendingCard]) -> rx.Component:
    """What a revision of a live agent changes: every field (old -> new), files added, files removed."""
    def names(items: ArrayVar[list[str]], icon: str, color: str, label: str, class_name: str) -> rx.Component:
        return rx.cond(items.length() > 0, rx.hstack(
            rx.text(label, size="1", weight="bold"),
            rx.foreach(items, lambda name: rx.badge(rx.icon(icon, size=11), name, color_scheme=color, variant="soft",
                                                    class_name=class_name)),
            spacing="1", wrap="wrap", align="center",
        ))

    return rx.cond(card.is_revision, rx.callout.root(
        rx.callout.icon(rx.icon("git-compare", size=16)),
        rx.vstack(
            rx.text("Changes to the live listing", size="2", weight="bold"),
            rx.foreach(card.changes, _change),
            names(card.files_added, "plus", "green", "Files added:", "file-added"),
            names(card.files_removed, "minus", "red", "Files removed:", "file-removed"),
            rx.cond(card.version != "", rx.text(rx.text("Version: ", weight="bold", as_="span"), card.version,
                                                size="1", class_name="revision-version")),
            rx.cond(card.release_notes_html != "", rx.vstack(
                rx.text("Release notes:", size="1", weight="bold"),
                # Rendered on the server with raw HTML off (services/versions/notes.py).
                release_notes(card.release_notes_html),
                spacing="1", width="100%")),
            rx.cond((card.changes.length() == 0) & (card.files_added.length() == 0)
                    & (card.files_removed.length() == 0),
                    rx.text("No visible differences (resubmitted as it is).", size="1", color_scheme="gray")),
            spacing="1", width="100%",
        ),
        color_scheme="blue", size="1", width="100%", class_name="revision-changes",
    ))


def _file(file: ObjectVar[FileView]) -> rx.Component:
    """A file under review: name, size, the type its content was found to be, its scan, and the admin's download."""
    return rx.hstack(
        rx.icon("file", size=16, color="var(--gray-10)", flex_shrink="0"),
        rx.vstack(
            rx.text(file.name, size="2", weight="medium", word_break="break-all", class_name="review-file-name"),
            rx.hstack(
                rx.text(file.size, size="1", color_scheme="gray", class_name="review-file-size"),
                rx.badge(rx.icon("shield-check", size=11), "Checked: ", file.checked_type, color_scheme="green",
                         variant="soft", size="1", class_name="review-file-type",
                         title="The type its content was found to be when it was attached"),
                spacing="2", align="center", wrap="wrap",
            ),
            # The security scan's verdict and every finding: flagged files and leaked secrets are the admin's call.
            rx.text(file.scan, size="1", weight="medium", class_name="review-file-scan", data_scan=file.scan_status,
                    color=rx.match(file.scan_status, ("clean", "var(--green-11)"), ("infected", "var(--red-11)"),
                                   ("flagged", "var(--orange-11)"), "var(--gray-11)")),
            rx.foreach(file.findings, lambda f: rx.text(f, size="1", color_scheme="gray", word_break="break-word",
                                                        class_name="review-file-finding")),
            spacing="0", min_width="0", flex="1",
        ),
        rx.el.a(rx.button(rx.icon("download", size=14), "Download", size="1", variant="soft"),
                href=file.href, download="", class_name="review-file-download",
                reload_document=True),  # a Reflex <a> routes client-side: let the browser fetch the file
        align="center", spacing="2", width="100%", padding_y="0.4em", border_bottom="1px solid var(--gray-a3)",
        class_name="review-file",
    )


def _files(card: ObjectVar[PendingCard]) -> rx.Component:
    return rx.vstack(
        rx.text("Files (", card.file_count, ")", size="2", weight="bold"),
        rx.cond(card.files.length() > 0, rx.foreach(card.files, _file),
                rx.text("No files attached: this agent cannot be approved yet.", size="2", color="var(--red-11)")),
        spacing="1", width="100%", id="review-files",
    )


def _vendor_block(card: ObjectVar[PendingCard]) -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.hstack(rx.icon("store", size=16, color="var(--accent-9)"),
                      rx.text("Vendor Information", weight="bold", size="2"), spacing="2", align="center"),
            rx.data_list.root(
                fact("Username", card.vendor_username, class_name="vendor-username"),
                fact("Email", rx.cond(card.vendor_email != "", card.vendor_email, "—"), class_name="vendor-email"),
                fact("Vendor ID", rx.code(rx.cond(card.vendor_id != "", card.vendor_id, "—"), size="1")),
                orientation=rx.breakpoints(initial="vertical", sm="horizontal"), size="2",
            ),
            spacing="2", width="100%",
        ),
        variant="surface", width="100%", id="vendor-information",
    )


def _details() -> rx.Component:
    card = P.viewing
    body = rx.vstack(
        rx.cond(card.image_url != "", agent_image(card.image_url, height="180px", alt=card.name)),
        _changes(card),
        rx.data_list.root(
            fact("Price", card.price, class_name="detail-price"),
            fact("Pricing model", card.pricing_model, class_name="detail-pricing-model"),
            fact("Activation limit", card.activation_limit, class_name="detail-activation-limit"),
            fact("Category", card.category),
            fact("Short description", card.short_description),
            fact("Tags", rx.cond(card.tags.length() > 0,
                                 rx.hstack(rx.foreach(card.tags, lambda t: rx.badge(t, variant="soft")), spacing="1",
                                           wrap="wrap"),
                                 rx.text("No tags", color_scheme="gray"))),
            fact("Demo", rx.cond(card.demo_url != "",
                                 rx.link(card.demo_url, href=card.demo_url, is_external=True, word_break="break-all"),
                                 rx.text("No demo", color_scheme="gray"))),
            fact("Submitted", card.submitted_at),
            orientation=rx.breakpoints(initial="vertical", sm="horizontal"),
        ),
        rx.vstack(
            rx.text("Description", size="2", weight="bold"),
            rx.text(card.description, size="2", color_scheme="gray", white_space="pre-wrap"),
            spacing="1", width="100%",
        ),
        _files(card),
        _vendor_block(card),
        spacing="4", width="100%", padding_top="0.75em",
    )
    return details_dialog(card.name, body, open=P.details_open, on_open_change=P.set_details_open,
                          footer=decision_buttons(P, card.id, card.name, "agent", in_dialog=True),
                          description=rx.cond(card.is_revision, "Changes to a live agent, waiting for review",
                                              "New agent, waiting for review"),
                          element_id="agent-details")


def _pending_card(card: ObjectVar[PendingCard]) -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.hstack(
                rx.vstack(
                    rx.heading(card.name, size="4", class_name="agent-name", as_="h3"),
                    rx.text(card.price, size="2", weight="medium", class_name="agent-price"),
                    spacing="1", min_width="0",
                ),
                rx.spacer(),
                rx.cond(card.is_revision,
                        rx.badge(rx.icon("git-compare", size=12), "Update", color_scheme="blue",
                                 class_name="revision-badge"),
                        rx.badge(rx.icon("clock", size=12), "Pending", color_scheme="amber")),
                width="100%", align="start",
            ),
            rx.hstack(_meta("tag", card.category), _meta("calendar", f"Submitted {card.submitted}"),
                      spacing="3", wrap="wrap"),
            rx.text(rx.cond(card.short_description != "", card.short_description, card.description), size="2",
                    color_scheme="gray", class_name="agent-description",
                    style={"display": "-webkit-box", "-webkit-line-clamp": "3", "-webkit-box-orient": "vertical",
                           "overflow": "hidden"}),
            rx.cond(card.demo_url != "",
                    rx.link(rx.hstack(rx.icon("external-link", size=14), rx.text("View demo", size="2"), spacing="1",
                                      align="center"),
                            href=card.demo_url, is_external=True, class_name="agent-demo")),
            _changes(card),
            decision_buttons(P, card.id, card.name, "agent", in_dialog=False),
            spacing="3", width="100%",
        ),
        width="100%", class_name="pending-agent", data_agent=card.name, data_id=card.id,
        data_kind=rx.cond(card.is_revision, "revision", "agent"),
    )


def _pending() -> rx.Component:
    empty = empty_state("circle-check", "No pending agents", "All agent submissions have been reviewed",
                        element_id="pending-empty")
    return card_list(P, "pending", _pending_card, empty)


# --- approved and rejected ----------------------------------------------------------------------------------


def _reviewed_card(card: ObjectVar[ReviewedCard], *, rejected: bool) -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.hstack(
                rx.link(rx.heading(card.name, size="3", class_name="agent-name", as_="h3"), href=f"/agents/{card.id}",
                        is_external=True, color_scheme="gray", high_contrast=True, underline="hover",
                        min_width="0")
                if not rejected else rx.heading(card.name, size="3", class_name="agent-name", as_="h3"),
                rx.spacer(),
                rx.badge(rx.icon("circle-x" if rejected else "circle-check", size=12),
                         "Rejected" if rejected else "Approved", color_scheme="red" if rejected else "green"),
                width="100%", align="start",
            ),
            rx.hstack(
                _meta("dollar-sign", card.price),
                _meta("tag", card.category),
                _meta("store", card.vendor, class_name="agent-vendor"),
                _meta("calendar", f"{'Rejected' if rejected else 'Approved'} {card.date}",
                      class_name="decision-date"),
                spacing="3", wrap="wrap",
            ),
            *([rx.cond(card.reason != "", rx.callout.root(
                rx.callout.text(rx.text("Rejection Reason: ", weight="bold", as_="span"), card.reason),
                color_scheme="red", size="1", width="100%", class_name="rejection-reason"))] if rejected else []),
            spacing="2", width="100%",
        ),
        width="100%", class_name="rejected-agent" if rejected else "approved-agent", data_agent=card.name,
        data_id=card.id,
    )


def _reviewed(state: type[AP] | type[RJ], which: str, empty: str, icon: str) -> rx.Component:
    rejected = which == "rejected"
    return card_list(state, which, lambda card: _reviewed_card(card, rejected=rejected),
                     empty_state(icon, empty, element_id=f"{which}-empty"))


SUBTABS = [
    TabSpec("pending", "Pending Approvals", P.total, _pending, icon="clock"),
    TabSpec("approved", "Approved Agents", AP.total,
            lambda: _reviewed(AP, "approved", "No approved agents", "circle-check"), icon="circle-check"),
    TabSpec("rejected", "Rejected Agents", RJ.total,
            lambda: _reviewed(RJ, "rejected", "No rejected agents", "circle-x"), icon="circle-x"),
]


def approvals_tab() -> rx.Component:
    """Opening the tab reads all three lists, so every sub-tab label carries its count."""
    reject = reason_dialog(
        P, "reject", REJECT,
        rx.text("You are rejecting ", rx.text(P.asking_name, weight="bold", as_="span", id="reject-agent-name"),
                ". The vendor can change it and submit it again.", size="2"),
        label="Rejection Reason", note=REJECT_NOTE, placeholder="What should the vendor change?",
        field_id="rejection-reason", element_id="reject-agent-dialog", confirm_id="confirm-reject-agent",
        cancel_id="cancel-reject")
    return rx.vstack(
        rx.heading("Agent Approvals", size="5", as_="h2"),
        tab_view(SUBTABS, P.subtab, P.set_subtab, select_id="approvals-subtab-select", label="Approvals list"),
        _details(),
        reject,
        spacing="4", width="100%", id="admin-approvals", on_mount=[P.on_open, AP.on_open, RJ.on_open],
    )
