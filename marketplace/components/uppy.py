"""The agent-file upload widget: Uppy's inline Dashboard uploading straight to storage, as a Reflex component.

The React side is assets/uppy_upload.jsx. It uploads through the app's Companion-compatible routes
(`/api/uploads/s3/...`), keeps the selection across reloads, and reports each finished file; the limits it
enforces are the server's settings, handed in as props, and the server checks every file when it finishes
and again on attach.
"""

from __future__ import annotations

import reflex as rx
from reflex.event import passthrough_event_spec

from marketplace.components.asset_component import AssetComponent

# Pinned: the Dashboard, aws-s3 and golden-retriever 6.x majors all ask for @uppy/core ^6.
UPPY_CORE = "@uppy/core@6.3.1"
UPPY_DASHBOARD = "@uppy/dashboard@6.0.3"
UPPY_AWS_S3 = "@uppy/aws-s3@6.3.1"
UPPY_GOLDEN_RETRIEVER = "@uppy/golden-retriever@6.0.0"


class UppyUpload(AssetComponent):
    """<UppyUpload> from assets/uppy_upload.jsx (Uppy + inline Dashboard + AwsS3 + GoldenRetriever)."""

    asset = "uppy_upload.jsx"
    lib_dependencies: list[str] = [UPPY_CORE, UPPY_DASHBOARD, UPPY_AWS_S3, UPPY_GOLDEN_RETRIEVER]

    # The Uppy instance id: also the name of its restore store, so one per user and agent being edited.
    uppy_id: rx.Var[str]
    # Base of the Companion-compatible routes (the plugin adds /s3/...).
    endpoint: rx.Var[str]
    # Restrictions from the server's settings.
    max_files: rx.Var[int]
    max_file_size: rx.Var[int]
    # Name endings the file picker offers (".zip", ".py", ...): services/filetypes.py `picker_extensions`.
    allowed_types: rx.Var[list[str]]
    # Files above this many bytes go multipart (resumable, part by part).
    multipart_threshold: rx.Var[int]
    note: rx.Var[str]
    height: rx.Var[int]
    disabled: rx.Var[bool]

    # A file finished uploading: {id, name, size, url}.
    # Reflex declares an event trigger by a call in its annotation, which only pyright reads.
    on_uploaded: rx.EventHandler[passthrough_event_spec(dict)]  # type: ignore[type-arg,valid-type]
    # A file left the widget (removed by the user): its Uppy id.
    on_removed: rx.EventHandler[passthrough_event_spec(str)]  # type: ignore[type-arg,valid-type]
    # A reload brought back files that had finished before it: [{id, name, size, url}, ...].
    on_restored: rx.EventHandler[passthrough_event_spec(list)]  # type: ignore[type-arg,valid-type]


uppy_upload = UppyUpload.create
