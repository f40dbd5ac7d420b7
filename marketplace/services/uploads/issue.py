"""Upload targets for one whole file: a PUT URL (`POST /api/objects/upload`) or a POST form (`s3/params`)."""

from __future__ import annotations

from marketplace.config import settings
from marketplace.integrations.storage import PresignedPost, get_storage
from marketplace.models import UploadMethod, User
from marketplace.services.permissions import require_vendor
from marketplace.services.uploads.records import record


def issue_put_url(*, actor: User | None, filename: str | None = None, content_type: str | None = None) -> str:
    """A URL the vendor's browser PUTs one file to; valid for `upload_url_ttl_seconds`."""
    vendor = require_vendor(actor)
    upload = record(vendor=vendor, method=UploadMethod.PUT, filename=filename, content_type=content_type)
    return get_storage().presigned_put_url(upload.key, expires_in=settings.upload_url_ttl_seconds)


def issue_post_form(*, actor: User | None, filename: str | None, content_type: str | None) -> PresignedPost:
    """A form POST target for one file, capped at `upload_max_file_bytes` by the storage itself."""
    vendor = require_vendor(actor)
    upload = record(vendor=vendor, method=UploadMethod.POST, filename=filename, content_type=content_type)
    return get_storage().presigned_post(upload.key, content_type=upload.content_type,
                                        max_bytes=settings.upload_max_file_bytes,
                                        expires_in=settings.upload_url_ttl_seconds)
