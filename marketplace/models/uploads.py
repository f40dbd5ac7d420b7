"""API schemas of the upload routes: `POST /api/objects/upload` and Uppy Companion's S3 protocol.

Companion's answers use S3's own names (`PartNumber`, `ETag`, `Size`) and the spec's `uploadURL`, so those
fields carry explicit aliases instead of the camelCase generator's.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from marketplace.models.base import ApiInput, ApiModel


class UploadUrlPublic(ApiModel):
    upload_url: str = Field(alias="uploadURL")


class PresignedPostPublic(ApiModel):
    method: str = "POST"
    url: str
    fields: dict[str, str]


class MultipartCreateIn(ApiInput):
    filename: str | None = Field(default=None, max_length=1024)
    content_type: str | None = Field(default=None, alias="type", max_length=1024)
    metadata: dict[str, Any] | None = None


class MultipartStartedPublic(ApiModel):
    key: str
    upload_id: str


class PartPublic(ApiModel):
    part_number: int = Field(alias="PartNumber")
    etag: str = Field(alias="ETag")
    size: int = Field(alias="Size")


class SignedPartPublic(ApiModel):
    url: str


class CompletedPartIn(ApiInput):
    part_number: int = Field(alias="PartNumber")
    etag: str = Field(alias="ETag", max_length=256)


class CompleteMultipartIn(ApiInput):
    parts: list[CompletedPartIn] = Field(max_length=10_000)


class CompletedUploadPublic(ApiModel):
    location: str
    key: str
    bucket: str
