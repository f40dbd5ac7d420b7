"""Uploads: keys issued to approved vendors, browser-to-storage targets, claims on attach, and expiry.

- issue: one PUT URL or one POST form per file (`issue_put_url`, `issue_post_form`);
- companion: multipart uploads in Uppy Companion's S3 protocol;
- local_target: the local backend's signed PUT/POST targets (S3 does this itself);
- claims: `claimable` reads a finished upload to check it; `claim` a finished upload by its URL for one
  attach, then `finish`, `release` or `drop` it;
  `reopen` undoes attaches of a new agent that was taken back;
  `discard` an upload that was never attached;
- sweep: `expire_stale` and the `sweep_forever` lifespan task.
"""

from __future__ import annotations

from marketplace.services.uploads.claims import (
    NOT_ISSUED,
    Claimed,
    claim,
    claimable,
    discard,
    drop,
    drop_unclaimed,
    finish,
    key_from_url,
    release,
    reopen,
)
from marketplace.services.uploads.companion import (
    CompletedUpload,
    MultipartStarted,
    abort_multipart,
    complete_multipart,
    list_parts,
    max_parts,
    sign_part,
    start_multipart,
)
from marketplace.services.uploads.issue import issue_post_form, issue_put_url
from marketplace.services.uploads.local_target import Received, receive_post, receive_put
from marketplace.services.uploads.records import KEY_PATTERN, PayloadTooLarge
from marketplace.services.uploads.sweep import expire_stale, sweep_forever

__all__ = [
    "KEY_PATTERN",
    "NOT_ISSUED",
    "Claimed",
    "CompletedUpload",
    "MultipartStarted",
    "PayloadTooLarge",
    "Received",
    "abort_multipart",
    "claim",
    "claimable",
    "complete_multipart",
    "discard",
    "drop",
    "drop_unclaimed",
    "expire_stale",
    "finish",
    "issue_post_form",
    "issue_put_url",
    "key_from_url",
    "list_parts",
    "max_parts",
    "receive_post",
    "receive_put",
    "release",
    "reopen",
    "sign_part",
    "start_multipart",
    "sweep_forever",
]
