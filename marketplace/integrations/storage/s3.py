"""S3 backend (boto3): objects in one bucket; browsers upload straight to it through presigned requests.

With `S3_ENDPOINT_URL` (MinIO, moto, any S3-compatible store) URLs are path-style, `{endpoint}/{bucket}/{key}`,
so the endpoint must be an address the browser can reach. The bucket's CORS must allow PUT and POST from the
site's origin and expose `ETag` (the upload client reads each part's ETag).
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import BinaryIO
from urllib.parse import quote

from marketplace.integrations.storage.base import (
    CHUNK_SIZE,
    NoSuchUpload,
    ObjectNotFound,
    PartInfo,
    PresignedPost,
    StaleMultipart,
    StorageError,
    safe_key,
    strip_etag,
)

UPLOAD_PREFIX = "uploads/"


class S3Storage:
    def __init__(self, *, bucket: str, endpoint_url: str | None, region: str) -> None:
        import boto3
        from botocore.config import Config

        self.bucket = bucket
        self.endpoint_url = (endpoint_url or "").rstrip("/") or None
        self.region = region
        style = "path" if self.endpoint_url else "auto"
        self.client = boto3.client("s3", endpoint_url=self.endpoint_url, region_name=region,
                                   config=Config(signature_version="s3v4", s3={"addressing_style": style}))

    @property
    def bucket_name(self) -> str:
        return self.bucket

    def _error_code(self, exc: Exception) -> str:
        return str(getattr(exc, "response", {}).get("Error", {}).get("Code", ""))

    # --- objects -----------------------------------------------------------------------------------
    def put(self, key: str, data: bytes, *, content_type: str = "application/octet-stream") -> None:
        self.client.put_object(Bucket=self.bucket, Key=safe_key(key), Body=data, ContentType=content_type)

    def get(self, key: str) -> bytes | None:
        try:
            return self.client.get_object(Bucket=self.bucket, Key=safe_key(key))["Body"].read()
        except self.client.exceptions.NoSuchKey:
            return None

    def head(self, key: str) -> int | None:
        try:
            return int(self.client.head_object(Bucket=self.bucket, Key=safe_key(key))["ContentLength"])
        except self.client.exceptions.ClientError as exc:
            if self._error_code(exc) in ("404", "NoSuchKey", "NotFound"):
                return None
            raise

    def iter_chunks(self, key: str, *, chunk_size: int = CHUNK_SIZE) -> Iterator[bytes]:
        try:
            body = self.client.get_object(Bucket=self.bucket, Key=safe_key(key))["Body"]
        except self.client.exceptions.NoSuchKey:
            raise ObjectNotFound(key) from None
        try:
            yield from body.iter_chunks(chunk_size)
        finally:
            body.close()

    @contextmanager
    def open_file(self, key: str) -> Iterator[BinaryIO]:
        """A temporary local copy (objects are at most the upload limit): seeks on it cost no requests."""
        with tempfile.TemporaryFile() as f:
            for chunk in self.iter_chunks(key):
                f.write(chunk)
            f.seek(0)
            yield f

    def delete(self, key: str) -> None:
        self.client.delete_object(Bucket=self.bucket, Key=safe_key(key))

    def move(self, src: str, dst: str) -> None:
        """A server-side copy (multipart for large objects), then the source goes."""
        try:
            self.client.copy({"Bucket": self.bucket, "Key": safe_key(src)}, self.bucket, safe_key(dst))
        except self.client.exceptions.ClientError as exc:
            if self._error_code(exc) in ("404", "NoSuchKey", "NotFound"):
                raise ObjectNotFound(src) from None
            raise
        self.delete(src)

    # --- presigned targets -------------------------------------------------------------------------
    def object_url(self, key: str) -> str:
        if self.endpoint_url:
            return f"{self.endpoint_url}/{self.bucket}/{quote(safe_key(key))}"
        return f"https://{self.bucket}.s3.{self.region}.amazonaws.com/{quote(safe_key(key))}"

    def presigned_put_url(self, key: str, *, expires_in: int) -> str:
        return self.client.generate_presigned_url(
            "put_object", Params={"Bucket": self.bucket, "Key": safe_key(key)}, ExpiresIn=expires_in)

    def presigned_post(self, key: str, *, content_type: str, max_bytes: int, expires_in: int) -> PresignedPost:
        post = self.client.generate_presigned_post(
            self.bucket, safe_key(key), Fields={"Content-Type": content_type},
            Conditions=[["content-length-range", 0, max_bytes], {"Content-Type": content_type}],
            ExpiresIn=expires_in)
        return PresignedPost(url=post["url"], fields={k: str(v) for k, v in post["fields"].items()})

    # --- multipart ---------------------------------------------------------------------------------
    def create_multipart(self, key: str, *, content_type: str) -> str:
        answer = self.client.create_multipart_upload(Bucket=self.bucket, Key=safe_key(key), ContentType=content_type)
        return str(answer["UploadId"])

    def presigned_part_url(self, key: str, upload_id: str, part_number: int, *, expires_in: int) -> str:
        params = {"Bucket": self.bucket, "Key": safe_key(key), "UploadId": upload_id, "PartNumber": part_number}
        return self.client.generate_presigned_url("upload_part", Params=params, ExpiresIn=expires_in)

    def list_parts(self, key: str, upload_id: str) -> list[PartInfo]:
        parts: list[PartInfo] = []
        marker = 0
        while True:
            try:
                page = self.client.list_parts(Bucket=self.bucket, Key=safe_key(key), UploadId=upload_id,
                                              PartNumberMarker=marker)
            except self.client.exceptions.NoSuchUpload:
                raise NoSuchUpload("The specified multipart upload does not exist") from None
            parts += [PartInfo(part_number=int(p["PartNumber"]), etag=strip_etag(p["ETag"]), size=int(p["Size"]))
                      for p in page.get("Parts", [])]
            if not page.get("IsTruncated"):
                return parts
            marker = int(page["NextPartNumberMarker"])

    def complete_multipart(self, key: str, upload_id: str, parts: list[tuple[int, str]]) -> None:
        listed = [{"PartNumber": n, "ETag": f'"{strip_etag(etag)}"'} for n, etag in parts]
        try:
            self.client.complete_multipart_upload(Bucket=self.bucket, Key=safe_key(key), UploadId=upload_id,
                                                  MultipartUpload={"Parts": listed})
        except self.client.exceptions.NoSuchUpload:
            raise NoSuchUpload("The specified multipart upload does not exist") from None
        except self.client.exceptions.ClientError as exc:
            if self._error_code(exc) in ("InvalidPart", "InvalidPartOrder", "EntityTooSmall", "MalformedXML"):
                raise StorageError(exc.response["Error"].get("Message") or self._error_code(exc)) from None
            raise

    def abort_multipart(self, key: str, upload_id: str) -> None:
        try:
            self.client.abort_multipart_upload(Bucket=self.bucket, Key=safe_key(key), UploadId=upload_id)
        except self.client.exceptions.NoSuchUpload:
            return

    def stale_multiparts(self, *, older_than: datetime) -> list[StaleMultipart]:
        """Multipart uploads under `uploads/` started before `older_than`."""
        stale = []
        for page in self.client.get_paginator("list_multipart_uploads").paginate(Bucket=self.bucket,
                                                                                 Prefix=UPLOAD_PREFIX):
            stale += [StaleMultipart(key=u["Key"], upload_id=u["UploadId"]) for u in page.get("Uploads", [])
                      if u["Initiated"] < older_than]
        return stale
