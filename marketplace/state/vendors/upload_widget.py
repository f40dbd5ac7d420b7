"""What the wizard's state tells the upload widget in the browser, as JavaScript for `rx.call_script`.

The widget (`components/uppy.py`, assets/uppy_upload.jsx) registers each Uppy instance in `window.__agentUploads`
under its id; these scripts reach it there. They live in the state layer because states send them, and states
import no components.
"""

from __future__ import annotations

import json


def clear_uploads_script(uppy_id: str) -> str:
    """JavaScript that empties the widget with this id (and its restore store) without reporting removals."""
    key = json.dumps(uppy_id)
    return f"window.__agentUploads && window.__agentUploads[{key}] && window.__agentUploads[{key}].clear()"


def refuse_upload_script(uppy_id: str, file_id: str, message: str) -> str:
    """JavaScript that marks one file of the widget with this id as refused, with the server's reason."""
    key = json.dumps(uppy_id)
    return (f"window.__agentUploads && window.__agentUploads[{key}]"
            f" && window.__agentUploads[{key}].refuse({json.dumps(file_id)}, {json.dumps(message)})")
