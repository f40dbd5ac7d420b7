"""File storage: local disk by default, S3 (boto3) when STORAGE_BACKEND=s3.

Both backends offer the same interface (`Storage`): objects by key, and presigned upload targets (one PUT,
one form POST, multipart) so that browsers upload straight to storage without passing through the app's
memory. The local backend serves its targets itself under `/api/uploads/local`, signed with HMAC tokens.
"""

from __future__ import annotations

from functools import lru_cache

from marketplace.config import settings
from marketplace.integrations.storage.base import (
    CHUNK_SIZE,
    NoSuchUpload,
    ObjectNotFound,
    ObjectTooLarge,
    PartInfo,
    PresignedPost,
    StaleMultipart,
    Storage,
    StorageError,
    safe_key,
    strip_etag,
)
from marketplace.integrations.storage.local import LocalStorage, ObjectWriter
from marketplace.integrations.storage.s3 import S3Storage

__all__ = [
    "CHUNK_SIZE",
    "LocalStorage",
    "NoSuchUpload",
    "ObjectNotFound",
    "ObjectTooLarge",
    "ObjectWriter",
    "PartInfo",
    "PresignedPost",
    "S3Storage",
    "StaleMultipart",
    "Storage",
    "StorageError",
    "get_storage",
    "safe_key",
    "strip_etag",
]


@lru_cache(maxsize=1)
def get_storage() -> Storage:
    """The configured backend (cached; tests that switch backends call `get_storage.cache_clear()`)."""
    if settings.storage_backend == "s3":
        return S3Storage(bucket=settings.s3_bucket, endpoint_url=settings.s3_endpoint_url, region=settings.s3_region)
    return LocalStorage(settings.storage_dir)
