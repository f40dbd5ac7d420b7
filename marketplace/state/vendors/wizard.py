"""/vendor/add-agent and /vendor/agents/{id}/edit: the four-step agent wizard.

The step gates and the two submit checks are the spec's conveniences for the user; every rule (required fields,
price format, URLs, tags, file count, size and type) is the services', whose messages are shown as they come.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import reflex as rx
from reflex.event import EventSpec

from marketplace.config import settings
from marketplace.models import PricingModel, User
from marketplace.services import filetypes, images, plans, pricing
from marketplace.services.catalog import categories as category_service
from marketplace.services.errors import DomainError, Forbidden, NotFound, Unauthorized
from marketplace.services.permissions import require_vendor
from marketplace.services.vendors import agents as agent_service
from marketplace.services.vendors import files as file_service
from marketplace.services.vendors import revisions, submission
from marketplace.services.vendors.drafts import (
    DEFAULT_ACTIVATION_LIMIT,
    UNLIMITED,
    AgentDraft,
    parse_activation_limit,
    parse_tags,
    parse_trial_days,
)
from marketplace.state import blocking
from marketplace.state.display import logged_out_again
from marketplace.state.forms import focus_field, submitted_checkbox, take_submitted
from marketplace.state.service_calls import Toast, attempt
from marketplace.state.session import ViewerMixin
from marketplace.state.vendors.upload_widget import clear_uploads_script, refuse_upload_script
from marketplace.state.vendors.wizard_rows import (
    AgentFileRow,
    CategoryOption,
    UploadedFile,
    price_label,
    scan_label,
    size_label,
)

# form field name (the spec's) -> state attribute (also the services' `field` name)
FIELDS = {
    "name": "name", "shortDescription": "short_description", "description": "description", "tags": "tags_text",
    "imageUrl": "image_url", "demoUrl": "demo_url", "price": "price", "categoryId": "category_id",
    "pricingModel": "pricing_model", "activationLimit": "activation_limit", "trialDays": "trial_days",
    "versionLabel": "version_label", "releaseNotes": "release_notes",
}
# which step shows a field, so a refusal from a service takes the user back to it
FIELD_STEPS = {"name": 1, "short_description": 1, "description": 1, "tags": 1, "image_url": 2, "demo_url": 2,
               "price": 3, "pricing_model": 3, "activation_limit": 3, "trial_days": 3, "category_id": 3,
               "version_label": 4, "release_notes": 4}
LAST_STEP = 4
# The Pricing step's choices: (value, name, what it means), monthly first (preselected).
PRICING_CHOICES = [(str(model), pricing.MODEL_NAMES[model], pricing.MODEL_DETAILS[model]) for model in PricingModel]
BLOCKED = ("Please complete required fields", "Fill in all required information before proceeding.")
TOO_MANY_TAGS = "Too many tags"
CREATE_FAILED = "Failed to create agent"
ATTACH_FAILED = "Failed to attach file to agent"
FILE_REFUSED = "File upload error"
ATTACHED = ("File uploaded successfully", "Your agent file has been attached.")
ALLOWED_TYPES = filetypes.picker_extensions()  # the file picker's name endings

SUBMIT_FAILED = Toast(fallback=CREATE_FAILED, unexpected=True, log="agent submission failed")  # others: logged


def _remove_file(user: User | None, file_id: str, agent_id: str) -> agent_service.EditableAgent:
    """Remove a file from the agent's next version; the agent as the wizard shows it afterwards."""
    file_service.remove_file(actor=user, file_id=file_id)
    return agent_service.get_editable_agent(actor=user, agent_id=agent_id)


def _send(user: User | None, agent_id: str, draft: AgentDraft,
          file_urls: list[str]) -> tuple[str, list[revisions.FileInfo]]:
    """The changes to an agent, or a new one: its id and the files attached."""
    if agent_id:
        return agent_id, submission.submit_changes(actor=user, agent_id=agent_id, draft=draft, file_urls=file_urls)
    # One unit: nothing is created unless every file passes (services/vendors/submission.py).
    return submission.submit_agent(actor=user, draft=draft, file_urls=file_urls)


class WizardState(ViewerMixin, rx.State):
    mode: str = "loading"  # loading | signed_out | limited (no room for a new agent on the plan) | ready
    limit_message: str = ""  # the plan's refusal, said before step 1
    editing: bool = False  # opened on an existing agent
    agent_id: str = ""  # the agent submits go to (set once a new agent was created, too)
    agent_status: str = ""
    has_pending_revision: bool = False
    step: int = 1
    name: str = ""
    short_description: str = ""
    description: str = ""
    tags_text: str = ""
    tags: list[str] = []
    tags_error: str = ""
    image_url: str = ""
    demo_url: str = ""
    price: str = ""
    pricing_model: str = "monthly"  # PRICING_CHOICES' values; the service checks it
    activation_limit: str = str(DEFAULT_ACTIVATION_LIMIT)  # machines per license key (the service checks it)
    unlimited_activations: bool = False
    activation_limit_error: str = ""
    trial_days: str = "0"  # free days before a subscriber's first charge (the service checks it)
    trial_days_error: str = ""
    category_id: str = ""
    # A live agent's new version (asked for when its files change): services/versions/labels.py checks them.
    version_label: str = ""
    release_notes: str = ""
    current_version_label: str = ""
    categories: list[CategoryOption] = []
    uploads: list[UploadedFile] = []
    existing_files: list[AgentFileRow] = []
    removing_file: str = ""
    preview_open: bool = False
    submitting: bool = False
    uppy_id: str = ""
    max_files_per_agent: int = 5
    max_file_bytes: int = 0
    allowed_types: list[str] = ALLOWED_TYPES
    multipart_threshold: int = 0

    # --- derived ----------------------------------------------------------------------------------------

    @rx.var
    def preview_image_url(self) -> str:
        """The typed image URL as the listing will show it (the placeholder until it is a web address)."""
        return images.displayable_image_url(self.image_url)

    @rx.var
    def file_count(self) -> int:
        return len(self.uploads) + len(self.existing_files)

    @rx.var
    def files_left(self) -> int:
        return max(self.max_files_per_agent - len(self.existing_files), 0)

    @rx.var
    def can_proceed(self) -> bool:
        """The spec's gate for the current step (section 5)."""
        if self.step == 1:
            return bool(self.name and self.description and self.short_description) and not self.tags_error
        if self.step == 2:
            return bool(self.file_count or self.image_url or self.demo_url)
        if self.step == 3:
            return bool(self.price and self.category_id)
        return True

    @rx.var
    def price_text(self) -> str:
        return price_label(self.price, self.pricing_model) if self.price else ""

    @rx.var
    def activation_text(self) -> str:
        return "Unlimited" if self.unlimited_activations else self.activation_limit

    @rx.var
    def category_name(self) -> str:
        return next((c.label for c in self.categories if c.id == self.category_id), "")

    @rx.var
    def live_agent(self) -> bool:
        return self.editing and self.agent_status == "approved"

    # --- loading ----------------------------------------------------------------------------------------

    def _route_agent_id(self) -> str:
        """The {id} of /vendor/agents/{id}/edit; empty on /vendor/add-agent."""
        parts = [p for p in self.router.url.path.split("/") if p]
        return parts[2] if len(parts) == 4 and parts[:2] == ["vendor", "agents"] and parts[3] == "edit" else ""

    @rx.event
    async def on_load(self) -> EventSpec | list[EventSpec] | None:
        self.reset()
        user = await self.viewer()
        try:
            user = require_vendor(user)
        except Unauthorized:
            self.mode = "signed_out"
            return logged_out_again(on_load=True)
        except Forbidden:  # not an approved vendor: /vendor shows the application form
            return rx.redirect("/vendor", replace=True)
        self.max_files_per_agent = settings.upload_max_files_per_agent
        self.max_file_bytes = settings.upload_max_file_bytes
        self.multipart_threshold = settings.upload_multipart_threshold_bytes
        self.categories = [CategoryOption(id=str(c.id), label=f"{c.emoji} {c.name}".strip())
                           for c in await blocking.run(category_service.list_categories)]
        agent_id = self._route_agent_id()
        self.uppy_id = f"agent-files-{user.id}-{agent_id or 'new'}"
        if agent_id:
            try:
                editable = await blocking.run(agent_service.get_editable_agent, actor=user, agent_id=agent_id)
            except (NotFound, Forbidden) as error:
                return [rx.toast.error("Error", description=error.message), rx.redirect("/vendor", replace=True)]
            self.editing = True
            self._show_editable(editable)
        else:
            refusal = await blocking.run(plans.room_refusal, actor=user)
            self.limit_message = refusal or ""
        self.mode = "limited" if self.limit_message else "ready"
        return None

    def _show_editable(self, editable: Any) -> None:
        draft = editable.draft
        self.agent_id = editable.id
        self.agent_status = str(editable.status)
        self.has_pending_revision = editable.has_pending_revision
        self.name, self.short_description, self.description = draft.name, draft.short_description, draft.description
        self.price = draft.price or ""
        self.pricing_model = draft.pricing_model or "monthly"
        self.unlimited_activations = draft.activation_limit == UNLIMITED
        self.activation_limit = str(DEFAULT_ACTIVATION_LIMIT if self.unlimited_activations else draft.activation_limit)
        self.trial_days = str(draft.trial_days or 0)
        self.category_id = "" if draft.category_id is None else str(draft.category_id)
        self.image_url, self.demo_url = draft.image_url or "", draft.demo_url or ""
        self.tags = list(draft.tags)
        self.tags_text = ", ".join(draft.tags)
        self.version_label, self.release_notes = draft.version_label or "", draft.release_notes or ""
        self.current_version_label = editable.current_version_label or ""
        self._show_files(editable.files)

    def _show_files(self, files: list[Any]) -> None:
        self.existing_files = [AgentFileRow(id=f.id, name=f.filename, size=size_label(f.size_bytes),
                                            scan=scan_label(f.scan), scan_status=f.scan.status) for f in files]

    # --- fields (each settable field named; nothing is set by a name the browser sends) ----------------

    @rx.event
    def set_name(self, value: str) -> None:
        self.name = value

    @rx.event
    def set_short_description(self, value: str) -> None:
        self.short_description = value

    @rx.event
    def set_description(self, value: str) -> None:
        self.description = value

    @rx.event
    def set_image_url(self, value: str) -> None:
        self.image_url = value

    @rx.event
    def set_demo_url(self, value: str) -> None:
        self.demo_url = value

    @rx.event
    def set_version_label(self, value: str) -> None:
        self.version_label = value

    @rx.event
    def set_release_notes(self, value: str) -> None:
        self.release_notes = value

    @rx.event
    def set_price(self, value: str) -> None:
        self.price = value

    @rx.event
    def set_pricing_model(self, value: str) -> None:
        self.pricing_model = value

    @rx.event
    def set_activation_limit(self, value: str) -> None:
        self.activation_limit, self.activation_limit_error = value, ""

    @rx.event
    def set_unlimited_activations(self, value: bool) -> None:
        self.unlimited_activations, self.activation_limit_error = bool(value), ""

    @rx.event
    def set_trial_days(self, value: str) -> None:
        self.trial_days, self.trial_days_error = value, ""

    def _trial_days(self) -> str:
        """A one-time licence has no trial: the field is hidden, so it is sent as none."""
        return self.trial_days if self.pricing_model == PricingModel.MONTHLY else "0"

    @rx.var
    def trial_text(self) -> str:
        """The review step's free trial: 'No free trial' or '7 days' (services/pricing)."""
        text = self._trial_days().strip()
        return pricing.trial_text(int(text)) if text.isascii() and text.isdigit() and len(text) <= 2 else text

    def _activation_limit(self) -> str:
        return UNLIMITED if self.unlimited_activations else self.activation_limit

    @rx.event
    def set_category_id(self, value: str) -> None:
        self.category_id = value

    @rx.event
    def set_tags_text(self, value: str) -> EventSpec | None:
        return self._read_tags(value)

    def _read_tags(self, value: str) -> EventSpec | None:
        """Parse as the service does; the toast comes once, when the list goes over the limit."""
        was_refused = bool(self.tags_error)
        self.tags_text = value
        try:
            self.tags = parse_tags(value)
        except DomainError as error:
            self.tags_error = error.message
            return None if was_refused else rx.toast.error(TOO_MANY_TAGS, description=error.message)
        self.tags_error = ""
        return None

    # --- steps -----------------------------------------------------------------------------------------

    def _take(self, form: dict | None) -> EventSpec | None:
        take_submitted(self, form, {k: v for k, v in FIELDS.items() if k != "tags"})
        unlimited = submitted_checkbox(form, "unlimitedActivations") if self.step == 3 else None  # its step only
        if unlimited is not None:
            self.unlimited_activations = unlimited
        tags = (form or {}).get("tags")
        if isinstance(tags, str) and tags != self.tags_text:
            return self._read_tags(tags)
        return None

    @rx.event
    async def proceed(self, form: dict | None = None) -> AsyncIterator[Any]:
        """The form's submit: Next on steps 1-3, Submit for Review on step 4."""
        toast = self._take(form)
        if toast is not None:
            yield toast
        if self.step >= LAST_STEP:
            async for update in self._submit():
                yield update
            return
        if self.step == 1 and self.tags_error:
            yield rx.toast.error(TOO_MANY_TAGS, description=self.tags_error)
            yield focus_field("tags")
            return
        if not self.can_proceed:
            yield rx.toast.error(BLOCKED[0], description=BLOCKED[1])
            yield focus_field(self._first_missing())
            return
        if self.step == 3:
            try:
                parse_activation_limit(self._activation_limit())
            except DomainError as error:
                self.activation_limit_error = error.message
                yield rx.toast.error("Invalid activation limit", description=error.message)
                yield focus_field("activationLimit")
                return
            try:
                parse_trial_days(self._trial_days(), pricing_model=self.pricing_model)
            except DomainError as error:
                self.trial_days_error = error.message
                yield rx.toast.error("Invalid free trial", description=error.message)
                yield focus_field("trialDays")
                return
        self.step += 1
        self.preview_open = False

    def _first_missing(self) -> str:
        """The element id (the form field's name) of the step's first required field left empty: a refused Next
        takes the focus there. Step 2 asks for one of three: its first, the image URL."""
        required = {1: ("name", "shortDescription", "description"), 3: ("price", "categoryId")}.get(self.step, ())
        for name in required:
            if not str(getattr(self, FIELDS[name])).strip():
                return name
        return "imageUrl" if self.step == 2 else "wizard-next"

    @rx.var
    def pricing_model_text(self) -> str:
        """The review step's pricing model: 'Monthly subscription' or 'One-time licence' (services/pricing)."""
        return dict((value, name) for value, name, _ in PRICING_CHOICES).get(self.pricing_model, self.pricing_model)

    @rx.event
    def back_to_files(self) -> None:
        """Step 4's 'Upload at least one agent file' link: back to the files step."""
        self.step, self.preview_open = 2, False

    @rx.event
    def previous(self) -> None:
        self.step = max(1, self.step - 1)
        self.preview_open = False

    @rx.event
    def discard(self) -> Iterator[Any]:
        """Cancel, confirmed: the widget's uploads (and their restore store) go, and the vendor goes back."""
        yield rx.call_script(clear_uploads_script(self.uppy_id))
        yield rx.redirect("/vendor")

    @rx.event
    def toggle_preview(self) -> None:
        self.preview_open = not self.preview_open

    # --- the upload widget -----------------------------------------------------------------------------

    def _upload_of(self, info: Any) -> UploadedFile | None:
        """The widget's report of a finished file, unless it is malformed or already listed."""
        if not isinstance(info, dict):
            return None
        file_id, url = str(info.get("id") or ""), str(info.get("url") or "")
        if not file_id or not url or any(u.id == file_id for u in self.uploads):
            return None
        size = info.get("size")
        return UploadedFile(id=file_id, name=str(info.get("name") or "file")[:255],
                            size=size_label(size if isinstance(size, int) else 0), url=url)

    @rx.event
    async def file_uploaded(self, info: dict) -> AsyncIterator[Any]:
        """Check the finished file at once (as attach will): a refused one is marked on its card in the widget
        and never joins the files to submit."""
        upload = self._upload_of(info)
        if upload is None:
            return
        user = await self.viewer()
        done = await attempt(Toast(None), submission.check_upload, actor=user, file_url=upload.url)
        if done.signed_out:
            yield done.events
            return
        if done.failed:
            yield rx.call_script(refuse_upload_script(self.uppy_id, upload.id, done.message))
            yield rx.toast.error(FILE_REFUSED, description=f"{upload.name}: {done.message}")
            return
        if all(u.id != upload.id for u in self.uploads):
            self.uploads = [*self.uploads, upload]
        yield rx.toast.success("File uploaded", description=f"{upload.name} has been uploaded successfully.")

    @rx.event
    def files_restored(self, infos: list) -> None:
        for info in infos if isinstance(infos, list) else []:
            upload = self._upload_of(info)
            if upload is not None:
                self.uploads = [*self.uploads, upload]

    @rx.event
    def file_removed(self, file_id: str) -> None:
        self.uploads = [u for u in self.uploads if u.id != file_id]

    @rx.event
    async def remove_existing_file(self, file_id: str) -> AsyncIterator[Any]:
        if self.removing_file:
            return
        self.removing_file = file_id
        yield
        user = await self.viewer()
        try:
            done = await attempt(Toast(), _remove_file, user, file_id, self.agent_id)
        finally:
            self.removing_file = ""
        if done.failed:
            yield done.events
            return
        self._show_files(done.value.files)

    # --- submit ----------------------------------------------------------------------------------------

    def _draft(self) -> AgentDraft:
        return AgentDraft(
            name=self.name, short_description=self.short_description, description=self.description,
            price=self.price, pricing_model=self.pricing_model, activation_limit=self._activation_limit(),
            trial_days=self._trial_days(),
            category_id=self.category_id or None, demo_url=self.demo_url or None,
            image_url=self.image_url or None, tags=list(self.tags),
            version_label=self.version_label.strip() or None, release_notes=self.release_notes.strip() or None,
        )

    async def _submit(self) -> AsyncIterator[Any]:
        if self.submitting:
            return
        if not all(v.strip() for v in (self.name, self.description, self.price, self.category_id)):
            yield rx.toast.error("Validation Error", description="Please fill in all required fields.")
            return
        if self.file_count == 0:
            yield rx.toast.error("File Required", description=submission.FILE_REQUIRED)
            return
        self.submitting = True
        yield
        user = await self.viewer()
        created = not self.agent_id
        done = await attempt(SUBMIT_FAILED, _send, user, self.agent_id, self._draft(), [u.url for u in self.uploads])
        if done.failed:
            self.submitting = False
            error = done.refusal
            if isinstance(error, submission.RefusedFile):
                self.step = 2  # the refused file leaves the widget; the others stay for the next try
                refused = next((u for u in self.uploads if u.url == error.url), None)
                self.uploads = [u for u in self.uploads if u.url != error.url]
                if refused is not None:
                    yield rx.call_script(refuse_upload_script(self.uppy_id, refused.id, error.message))
                yield rx.toast.error(FILE_REFUSED, description=f"{error.filename}: {error.message or ATTACH_FAILED}")
                return
            if error is not None:
                if error.field == "activation_limit":
                    self.activation_limit_error = error.message
                if error.field == "trial_days":
                    self.trial_days_error = error.message
                self.step = FIELD_STEPS.get(error.field or "", 2 if error.field == submission.FIELD else self.step)
            yield done.events
            return
        self.agent_id, attached = done.value
        if created:
            self.agent_status = "pending"
        self.submitting = False
        for _ in attached:
            yield rx.toast.success(ATTACHED[0], description=ATTACHED[1])
        for update in self._done():
            yield update

    def _done(self) -> Iterator[Any]:
        yield rx.call_script(clear_uploads_script(self.uppy_id))
        if self.editing and self.agent_status == "approved":
            yield rx.toast.success("Changes submitted for review",
                                   description="Your changes go live after admin approval; the live listing "
                                               "stays as it is until then.")
        else:
            yield rx.toast.success("Agent submitted for review",
                                   description="Your agent has been submitted and is awaiting admin approval "
                                               "before going live.")
        yield rx.redirect("/vendor")
