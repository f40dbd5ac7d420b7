"""/vendor/add-agent and /vendor/agents/{id}/edit: the four-step wizard (spec section 2, gates in section 5)."""

from __future__ import annotations

import reflex as rx
from reflex.event import EventCallback

from marketplace.components.forms import field
from marketplace.components.image import agent_image
from marketplace.components.layout import container, notice_card, page_frame
from marketplace.components.links import button_link
from marketplace.components.spinner import skeleton_block
from marketplace.components.uppy import uppy_upload
from marketplace.state.display import LOGGED_OUT_MESSAGE, LOGGED_OUT_TITLE
from marketplace.state.vendors.wizard import PRICING_CHOICES
from marketplace.state.vendors.wizard import WizardState as W
from marketplace.state.vendors.wizard_rows import AgentFileRow, CategoryOption, UploadedFile

FORM_ID = "agent-wizard-form"
STEPS = [
    ("bot", "Agent Info", "Basic information about your agent"),
    ("image", "Screenshots/Demo", "Visual content and demo links"),
    ("dollar-sign", "Pricing", "Set your pricing and category"),
    ("send", "Review & Submit", "Review and submit for approval"),
]


# --- the step indicator ------------------------------------------------------------------------------------


def _step_marker(number: int, icon: str, title: str, description: str) -> rx.Component:
    done, current = W.step > number, W.step == number
    circle = rx.center(
        rx.cond(done, rx.icon("check", size=18), rx.icon(icon, size=18)),
        width="40px", height="40px", border_radius="50%", flex_shrink="0",
        background=rx.cond(done | current, "var(--accent-9)", "var(--gray-a3)"),
        color=rx.cond(done | current, "white", "var(--gray-10)"),
    )
    return rx.flex(
        circle,
        # Below 520 px four titles do not fit side by side: the markers keep their icons (and accessible
        # names), and the card under them names the current step.
        rx.vstack(
            rx.text(title, size=rx.breakpoints(initial="1", md="2"), weight="bold",
                    color=rx.cond(current, "var(--accent-11)", "var(--gray-12)"),
                    align=rx.breakpoints(initial="center", md="left")),
            rx.text(description, size="1", color_scheme="gray", display=["none", "none", "none", "block"]),
            spacing="0", align=rx.breakpoints(initial="center", md="start"), min_width="0",
            display=["none", "flex"],
        ),
        direction=rx.breakpoints(initial="column", md="row"), align="center", spacing="2",
        aria_label=f"Step {number}: {title}", aria_current=rx.cond(current, "step", "false"),
        class_name="wizard-step", data_step=str(number),
        data_state=rx.cond(current, "current", rx.cond(done, "done", "todo")),
    )


def _step_indicator() -> rx.Component:
    return rx.grid(
        *[_step_marker(i, icon, title, text) for i, (icon, title, text) in enumerate(STEPS, start=1)],
        columns="4", spacing=rx.breakpoints(initial="1", sm="3"), width="100%", id="wizard-steps",
    )


def _step_header() -> rx.Component:
    return rx.match(
        W.step,
        *[(i, rx.vstack(rx.text(f"Step {i} of {len(STEPS)}", size="1", color_scheme="gray", weight="medium",
                                id="step-count"),
                        rx.heading(title, size="5", id="step-title", as_="h2"),
                        rx.text(text, color_scheme="gray", size="2", id="step-description"), spacing="1"))
          for i, (_, title, text) in enumerate(STEPS, start=1)],
        rx.fragment(),
    )


# --- step bodies -------------------------------------------------------------------------------------------


def _input(label: str | rx.Var, name: str, value: rx.Var, on_change: rx.EventHandler | EventCallback[str],
           **props: object) -> rx.Component:
    return field(label, rx.input(id=name, name=name, value=value, on_change=on_change, size="3", **props),
                 field_id=name)


def _agent_info() -> rx.Component:
    tags = rx.vstack(
        rx.text("Tags", as_="label", size="2", weight="medium", html_for="tags"),
        rx.input(id="tags", name="tags", value=W.tags_text, on_change=W.set_tags_text, size="3",
                 placeholder="automation, email, productivity", max_length=500, width="100%"),
        rx.cond(W.tags_error != "",
                rx.text(W.tags_error, size="1", color_scheme="red", id="tags-error"),
                rx.text("Separate tags with commas (up to 5).", size="1", color_scheme="gray")),
        rx.cond(W.tags.length() > 0,
                rx.hstack(rx.foreach(W.tags, lambda t: rx.badge(t, variant="soft", radius="full")), spacing="1",
                          wrap="wrap", id="tag-chips")),
        spacing="1", width="100%",
    )
    return rx.vstack(
        _input("Agent Name *", "name", W.name, W.set_name, placeholder="e.g. Inbox Zero Assistant", max_length=200),
        _input("Short Description *", "shortDescription", W.short_description, W.set_short_description,
               placeholder="One line that sells your agent", max_length=300),
        field("Description *", rx.text_area(id="description", name="description", value=W.description,
                                            on_change=W.set_description, rows="6", size="3",
                                            placeholder="What does it do, for whom, and how is it set up?"),
              field_id="description"),
        tags,
        spacing="4", width="100%",
    )


def _media() -> rx.Component:
    return rx.vstack(
        _input("Image URL", "imageUrl", W.image_url, W.set_image_url, type="url",
               placeholder="https://example.com/screenshot.png"),
        _input("Demo URL", "demoUrl", W.demo_url, W.set_demo_url, type="url", placeholder="https://example.com/demo"),
        rx.text("Add at least one of: an agent file, an image URL or a demo URL.", size="1", color_scheme="gray"),
        spacing="4", width="100%",
    )


def _category_item(option: CategoryOption) -> rx.Component:
    return rx.select.item(option.label, value=option.id)


def _pricing_choice(value: str, title: str, detail: str) -> rx.Component:
    return rx.radio_cards.item(
        rx.vstack(rx.text(title, weight="bold", size="2"), rx.text(detail, size="1", color_scheme="gray"),
                  spacing="1", align="start"),
        value=value, id=f"pricing-{value}",
    )


def _activation_limit() -> rx.Component:
    """Machines one buyer's license key may run on: a number, or no limit."""
    return rx.vstack(
        field("Activation limit *", rx.hstack(
            rx.input(id="activationLimit", name="activationLimit", value=W.activation_limit,
                     on_change=W.set_activation_limit, type="number", min="1", max="100", step="1", size="3",
                     input_mode="numeric", disabled=W.unlimited_activations, width="8em",
                     aria_label="Activation limit"),
            rx.checkbox("Unlimited", checked=W.unlimited_activations, on_change=W.set_unlimited_activations,
                        id="unlimitedActivations", name="unlimitedActivations", size="2"),
            spacing="4", align="center", wrap="wrap",
        ), W.activation_limit_error, field_id="activationLimit"),
        rx.text("How many machines a buyer's license key can be activated on (1-100).", size="1",
                color_scheme="gray"),
        spacing="1", width="100%",
    )


def _trial_days() -> rx.Component:
    """Free days before a new subscriber's first charge (monthly agents only)."""
    return rx.vstack(
        field("Free trial (days)", rx.input(
            id="trialDays", name="trialDays", value=W.trial_days, on_change=W.set_trial_days, type="number",
            min="0", max="30", step="1", size="3", input_mode="numeric", width="8em", aria_label="Free trial (days)",
        ), W.trial_days_error, field_id="trialDays"),
        rx.text("Days a new subscriber uses the agent for free before the first charge (0 for none, up to 30).",
                size="1", color_scheme="gray"),
        spacing="1", width="100%",
    )


def _pricing() -> rx.Component:
    return rx.vstack(
        field("Pricing model *", rx.radio_cards.root(
            *[_pricing_choice(*choice) for choice in PRICING_CHOICES],
            name="pricingModel", value=W.pricing_model, on_value_change=W.set_pricing_model,
            columns=rx.breakpoints(initial="1", sm="2"), width="100%", id="pricingModel",
            aria_label="Pricing model",
        ), field_id="pricingModel"),
        _input(rx.cond(W.pricing_model == "one_time", "Price (One-time) *", "Price (Monthly) *"), "price", W.price,
               W.set_price, type="number", step="0.01", min="0",
               placeholder="29.99", input_mode="decimal"),
        _activation_limit(),
        rx.cond(W.pricing_model == "monthly", _trial_days()),
        field("Category *", rx.select.root(
            rx.select.trigger(id="categoryId", placeholder="Select a category", width="100%",
                              aria_label="Category"),
            rx.select.content(rx.foreach(W.categories, _category_item), position="popper"),
            name="categoryId", value=W.category_id, on_change=W.set_category_id, size="3",
        ), field_id="categoryId"),
        spacing="4", width="100%",
    )


def _summary_row(label: str, value: rx.Component | rx.Var | str, element_id: str) -> rx.Component:
    return rx.data_list.item(rx.data_list.label(label, min_width="9em"),
                             rx.data_list.value(value, id=element_id))


def _yes_no(flag: rx.Var) -> rx.Component:
    return rx.cond(flag, rx.badge(rx.icon("check", size=12), "Yes", color_scheme="green"),
                   rx.badge("No", color_scheme="gray"))


def _preview() -> rx.Component:
    return rx.card(
        rx.vstack(
            agent_image(W.preview_image_url, height="200px", emoji_size="5em", alt=W.name),
            rx.hstack(
                rx.heading(W.name, size="6", id="preview-name", as_="h3"),
                rx.spacer(),
                rx.badge(W.price_text, size="3", id="preview-price"),
                width="100%", align="center", wrap="wrap", spacing="2",
            ),
            rx.text(W.short_description, size="3", color_scheme="gray", id="preview-short"),
            rx.text(W.description, white_space="pre-wrap", id="preview-description"),
            rx.cond(W.tags.length() > 0,
                    rx.hstack(rx.foreach(W.tags, lambda t: rx.badge(t, variant="soft", radius="full")),
                              spacing="1", wrap="wrap", id="preview-tags")),
            rx.cond(W.demo_url != "",
                    button_link(rx.icon("external-link", size=16), "View Demo", href=W.demo_url, is_external=True,
                                variant="outline", id="preview-demo")),
            spacing="3", align="start", width="100%",
        ),
        width="100%", id="agent-preview", variant="surface",
    )


def _new_version() -> rx.Component:
    """A live agent's new version: asked for when its files change (the service says so when they are missing)."""
    return rx.vstack(
        rx.heading("New version", size="3", as_="h3"),
        rx.text("Required when you add or remove files. Current version: ", W.current_version_label, ".",
                size="1", color_scheme="gray", id="current-version"),
        _input("Version label", "versionLabel", W.version_label, W.set_version_label, placeholder="e.g. 1.4.0",
               max_length=32),
        field("Release notes", rx.text_area(id="releaseNotes", name="releaseNotes", value=W.release_notes,
                                            on_change=W.set_release_notes, rows="5", size="3", max_length=5000,
                                            placeholder="What changed in this version (Markdown)"),
              field_id="releaseNotes"),
        spacing="3", width="100%", id="new-version",
    )


def _first_version() -> rx.Component:
    """A new agent's first version: both optional (the label defaults to 1.0.0)."""
    return rx.vstack(
        rx.heading("First version", size="3", as_="h3"),
        rx.text("Optional: leave the label empty for 1.0.0.", size="1", color_scheme="gray", id="first-version-hint"),
        _input("Version label", "versionLabel", W.version_label, W.set_version_label, placeholder="1.0.0",
               max_length=32),
        field("Release notes", rx.text_area(id="releaseNotes", name="releaseNotes", value=W.release_notes,
                                            on_change=W.set_release_notes, rows="4", size="3", max_length=5000,
                                            placeholder="What this version does (Markdown, optional)"),
              field_id="releaseNotes"),
        spacing="3", width="100%", id="first-version",
    )


def _review() -> rx.Component:
    summary = rx.data_list.root(
        _summary_row("Name", W.name, "summary-name"),
        _summary_row("Short description", W.short_description, "summary-short"),
        _summary_row("Pricing model", W.pricing_model_text, "summary-pricing-model"),
        _summary_row("Price", W.price_text, "summary-price"),
        _summary_row("Activation limit", W.activation_text, "summary-activation-limit"),
        rx.cond(W.pricing_model == "monthly", _summary_row("Free trial", W.trial_text, "summary-trial")),
        _summary_row("Category", W.category_name, "summary-category"),
        _summary_row("File uploaded", rx.hstack(_yes_no(W.file_count > 0),
                                                rx.cond(W.file_count > 0, rx.text(f"{W.file_count} file(s)",
                                                                                  size="1", color_scheme="gray")),
                                                spacing="2", align="center"), "summary-file"),
        _summary_row("Demo", _yes_no(W.demo_url != ""), "summary-demo"),
        _summary_row("Tags", rx.cond(W.tags.length() > 0,
                                     rx.flex(rx.foreach(W.tags, lambda tag: rx.badge(tag, variant="soft",
                                                                                    class_name="summary-tag")),
                                             wrap="wrap", spacing="1"),
                                     rx.text("None", color_scheme="gray")), "summary-tags"),
        orientation=rx.breakpoints(initial="vertical", sm="horizontal"), size="2",
    )
    return rx.vstack(
        summary,
        rx.cond(W.live_agent, _new_version(), _first_version()),
        rx.button(rx.icon(rx.cond(W.preview_open, "eye-off", "eye"), size=16),
                  rx.cond(W.preview_open, "Close Preview", "Preview Agent Page"),
                  type="button", variant="outline", on_click=W.toggle_preview, id="toggle-preview"),
        rx.cond(W.preview_open, _preview()),
        spacing="4", width="100%", align="start",
    )


# --- files (step 2, kept mounted so the widget keeps its files between steps) -----------------------------


def _existing_file(file: AgentFileRow) -> rx.Component:
    return rx.hstack(
        rx.icon("file", size=16, color="var(--gray-10)", flex_shrink="0"),
        rx.text(file.name, size="2", weight="medium", overflow="hidden", text_overflow="ellipsis",
                white_space="nowrap", min_width="0"),
        rx.text(file.size, size="1", color_scheme="gray", white_space="nowrap"),
        rx.badge(file.scan, color_scheme=rx.match(file.scan_status, ("clean", "green"), ("infected", "red"),
                                                  ("flagged", "amber"), "gray"), class_name="file-scan"),
        rx.spacer(),
        rx.icon_button(rx.cond(W.removing_file == file.id, rx.spinner(size="1"), rx.icon("trash-2", size=14)),
                       size="1", variant="soft", color_scheme="red", type="button",
                       disabled=W.removing_file != "", on_click=W.remove_existing_file(file.id),
                       aria_label=f"Remove {file.name}", class_name="remove-file"),
        width="100%", align="center", spacing="2", padding_y="0.4em", border_bottom="1px solid var(--gray-a4)",
        class_name="existing-file", data_file=file.name,
    )


def _uploaded_file(file: UploadedFile) -> rx.Component:
    return rx.hstack(rx.icon("circle-check", size=14, color="var(--green-10)"), rx.text(file.name, size="1"),
                     rx.text(file.size, size="1", color_scheme="gray"), spacing="1", align="center",
                     class_name="uploaded-file", data_file=file.name)


def _files() -> rx.Component:
    existing = rx.cond(
        W.existing_files.length() > 0,
        rx.vstack(
            rx.text("Current files", size="2", weight="medium"),
            rx.box(rx.foreach(W.existing_files, _existing_file), width="100%"),
            rx.text("Files you add below join these when you submit.", size="1", color_scheme="gray"),
            spacing="1", width="100%", id="existing-files",
        ),
    )
    return rx.vstack(
        rx.text("Agent files", size="2", weight="medium"),
        existing,
        rx.box(
            uppy_upload(
                uppy_id=W.uppy_id, endpoint="/api/uploads", max_files=W.files_left,
                max_file_size=W.max_file_bytes, allowed_types=W.allowed_types,
                multipart_threshold=W.multipart_threshold,
                note=f"Up to {W.files_left} file(s): zip, tar.gz, json, yaml, py, js, ts, md, txt or pdf.",
                height=360, disabled=W.files_left == 0,
                on_uploaded=W.file_uploaded, on_removed=W.file_removed, on_restored=W.files_restored,
                id="agent-uploader",
            ),
            width="100%",
        ),
        rx.cond(W.uploads.length() > 0,
                rx.hstack(rx.foreach(W.uploads, _uploaded_file), spacing="3", wrap="wrap", id="uploaded-files")),
        spacing="2", width="100%",
        display=rx.cond(W.step == 2, "flex", "none"), id="wizard-files",
    )


# --- frame -------------------------------------------------------------------------------------------------


def _nav() -> rx.Component:
    # Phones: a clean stack, the step's main action on top; wider: Previous left, Cancel and Next/Submit right.
    full = rx.breakpoints(initial="100%", sm="auto")
    next_button = rx.button(
        "Next", rx.icon("arrow-right", size=16), type="submit", form=FORM_ID, id="wizard-next",
        # Looks disabled until the step is filled, and a press says what is missing (spec: blocked Next toast).
        variant=rx.cond(W.can_proceed, "solid", "soft"), color_scheme=rx.cond(W.can_proceed, "violet", "gray"),
        aria_disabled=rx.cond(W.can_proceed, "false", "true"), width=full,
    )
    submit_button = rx.button(
        rx.cond(W.submitting, rx.spinner(size="2"), rx.icon("send", size=16)),
        rx.cond(W.submitting, "Submitting...", "Submit for Review"),
        type="submit", form=FORM_ID, id="wizard-submit", disabled=W.submitting,
        variant=rx.cond(W.file_count > 0, "solid", "soft"), color_scheme=rx.cond(W.file_count > 0, "violet", "gray"),
        aria_disabled=rx.cond(W.file_count > 0, "false", "true"), width=full,
    )
    # Why Submit is grey, next to it, with the way back to the files step.
    no_file = rx.cond((W.step == 4) & (W.file_count == 0), rx.text(
        "Upload at least one agent file to submit. ",
        rx.button("Go to step 2", type="button", variant="ghost", size="2", on_click=W.back_to_files,
                  id="wizard-back-to-files", style={"text_decoration": "underline", "cursor": "pointer"}),
        size="2", color_scheme="amber", id="wizard-no-file", align_self="center"))
    return rx.flex(
        rx.button(rx.icon("arrow-left", size=16), "Previous", type="button", variant="outline",
                  disabled=W.step == 1, on_click=W.previous, id="wizard-previous", width=full),
        rx.spacer(display=rx.breakpoints(initial="none", sm="block")),
        _cancel(full),
        rx.cond(W.step < 4, next_button, submit_button),
        no_file,
        direction=rx.breakpoints(initial="column-reverse", sm="row"), align="stretch", width="100%", spacing="3",
        id="wizard-nav",
    )


def _cancel(width: rx.Var) -> rx.Component:
    """Cancel asks first: it throws away what was typed and uploaded. Soft, not ghost: a ghost button's negative
    margins put it off the row its neighbours sit on."""
    return rx.alert_dialog.root(
        rx.alert_dialog.trigger(rx.button("Cancel", type="button", variant="soft", color_scheme="gray",
                                          id="wizard-cancel", width=width)),
        rx.alert_dialog.content(
            rx.alert_dialog.title(rx.cond(W.editing, "Discard your changes?", "Discard this agent?")),
            rx.alert_dialog.description(rx.cond(
                W.editing, "What you changed and the files you added here will be lost.",
                "What you typed and the files you uploaded will be lost.")),
            rx.flex(
                rx.alert_dialog.cancel(rx.button("Keep editing", variant="soft", color_scheme="gray",
                                                 id="wizard-keep-editing")),
                rx.alert_dialog.action(rx.button("Discard", color_scheme="red", on_click=W.discard,
                                                 id="wizard-discard")),
                justify="end", gap="2", margin_top="1em", wrap="wrap",
            ),
            max_width="460px", id="wizard-cancel-dialog",
        ),
    )


def _edit_notes() -> rx.Component:
    return rx.fragment(
        rx.cond(W.live_agent, rx.callout(
            "This agent is live. Your changes and new files wait for admin approval; buyers keep the current "
            "version until then.", icon="info", color_scheme="blue", size="1", width="100%", id="live-note")),
        rx.cond(W.has_pending_revision, rx.callout(
            "Changes to this agent are already waiting for review: what you submit now updates them.",
            icon="clock", color_scheme="amber", size="1", width="100%", id="revision-note")),
        rx.cond(W.editing & (W.agent_status == "rejected"), rx.callout(
            "This agent was rejected. Submitting sends it back for review.", icon="triangle-alert",
            color_scheme="red", size="1", width="100%", id="rejected-note")),
    )


def _wizard() -> rx.Component:
    body = rx.match(W.step, (1, _agent_info()), (2, _media()), (3, _pricing()), (4, _review()), rx.fragment())
    return container(
        rx.vstack(
            rx.link(rx.hstack(rx.icon("arrow-left", size=16), rx.text("Back to Dashboard"), spacing="1",
                              align="center"), href="/vendor", color_scheme="gray", size="2", id="back-to-dashboard"),
            rx.heading(rx.cond(W.editing, "Edit AI Agent", "Create New AI Agent"),
                       size=rx.breakpoints(initial="7", sm="8"), id="wizard-heading", as_="h1"),
            _edit_notes(),
            _step_indicator(),
            rx.card(
                rx.vstack(
                    _step_header(),
                    _files(),
                    rx.form(body, id=FORM_ID, on_submit=W.proceed, no_validate=True, width="100%"),
                    spacing="4", width="100%",
                ),
                size=rx.breakpoints(initial="2", sm="3"), width="100%", id="wizard-card",
            ),
            _nav(),
            spacing="5", width="100%", max_width="860px", margin_x="auto",
        ),
        id="agent-wizard",
    )


def _signed_out() -> rx.Component:
    return notice_card("lock", LOGGED_OUT_TITLE, LOGGED_OUT_MESSAGE, rx.spinner(size="2"), card_id="wizard-signed-out")


def _loading() -> rx.Component:
    return container(rx.vstack(skeleton_block("2.2em", "16em"), skeleton_block("4em"), skeleton_block("18em"),
                               spacing="5", width="100%", max_width="860px", margin_x="auto"), id="wizard-loading")


def _limited() -> rx.Component:
    """No room for another agent on the vendor's plan: the service's words, before step 1, and the way on."""
    return notice_card("layers", "Agent limit reached", W.limit_message,
                       button_link(rx.icon("arrow-up-right", size=16), "See plans", href="/vendor/plans",
                                   id="limit-plans-link"),
                       card_id="wizard-limit", text_id="wizard-limit-message", max_width="460px")


def add_agent_page() -> rx.Component:
    return page_frame(rx.match(W.mode, ("signed_out", _signed_out()), ("limited", _limited()), ("ready", _wizard()),
                               _loading()))
