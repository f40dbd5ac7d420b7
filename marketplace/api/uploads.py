"""Uploads: one-PUT upload URLs, Uppy Companion's S3 protocol, and the local backend's signed targets.

`@uppy/aws-s3` with `companionEndpoint: '/api/uploads'` calls the `/api/uploads/s3/...` routes (signed in
as an approved vendor). The local targets (`/api/uploads/local...`) authenticate by their signature only.
"""

from __future__ import annotations

from fastapi import APIRouter, Body, Query, Request, Response

from marketplace.api.deps import OptionalUser
from marketplace.models.uploads import (
    CompletedUploadPublic,
    CompleteMultipartIn,
    MultipartCreateIn,
    MultipartStartedPublic,
    PartPublic,
    PresignedPostPublic,
    SignedPartPublic,
    UploadUrlPublic,
)
from marketplace.services import uploads
from marketplace.services.text import is_digits

router = APIRouter(prefix="/api", tags=["uploads"])


def _content_length(request: Request) -> int | None:
    value = request.headers.get("content-length", "")
    return int(value) if is_digits(value) else None


@router.post("/objects/upload")
def object_upload_url(user: OptionalUser, filename: str | None = Query(None, max_length=1024),
                      content_type: str | None = Query(None, alias="type", max_length=1024)) -> UploadUrlPublic:
    """A URL for one PUT of one file (the body is the file). The spec's call sends no name: the file is then
    judged by its content alone when attached; `filename` and `type` let a client keep its name."""
    return UploadUrlPublic(uploadURL=uploads.issue_put_url(actor=user, filename=filename, content_type=content_type))


@router.get("/uploads/s3/params")
def s3_params(user: OptionalUser, filename: str | None = Query(None, max_length=1024),
              content_type: str | None = Query(None, alias="type", max_length=1024)) -> PresignedPostPublic:
    """A form POST target for a file below the multipart threshold (`metadata[...]` is accepted, not kept)."""
    post = uploads.issue_post_form(actor=user, filename=filename, content_type=content_type)
    return PresignedPostPublic(url=post.url, fields=post.fields)


@router.post("/uploads/s3/multipart")
def s3_multipart_create(user: OptionalUser, body: MultipartCreateIn = Body(...)) -> MultipartStartedPublic:
    started = uploads.start_multipart(actor=user, filename=body.filename, content_type=body.content_type)
    return MultipartStartedPublic(key=started.key, upload_id=started.upload_id)


@router.get("/uploads/s3/multipart/{upload_id}")
def s3_multipart_parts(upload_id: str, user: OptionalUser, key: str = Query("")) -> list[PartPublic]:
    parts = uploads.list_parts(actor=user, key=key, upload_id=upload_id)
    return [PartPublic(PartNumber=p.part_number, ETag=p.etag, Size=p.size) for p in parts]  # its S3 names


@router.get("/uploads/s3/multipart/{upload_id}/{part_number}")
def s3_multipart_sign_part(upload_id: str, part_number: int, user: OptionalUser,
                           key: str = Query("")) -> SignedPartPublic:
    return SignedPartPublic(url=uploads.sign_part(actor=user, key=key, upload_id=upload_id,
                                                  part_number=part_number))


@router.post("/uploads/s3/multipart/{upload_id}/complete")
def s3_multipart_complete(upload_id: str, user: OptionalUser, body: CompleteMultipartIn = Body(...),
                          key: str = Query("")) -> CompletedUploadPublic:
    parts = [(p.part_number, p.etag) for p in body.parts]
    done = uploads.complete_multipart(actor=user, key=key, upload_id=upload_id, parts=parts)
    return CompletedUploadPublic(location=done.location, key=done.key, bucket=done.bucket)


@router.delete("/uploads/s3/multipart/{upload_id}")
def s3_multipart_abort(upload_id: str, user: OptionalUser, key: str = Query("")) -> dict[str, str]:
    uploads.abort_multipart(actor=user, key=key, upload_id=upload_id)
    return {}


@router.put("/uploads/local/{key:path}", include_in_schema=False)
async def local_put(key: str, request: Request) -> Response:
    """Local backend: a signed PUT of a whole file, or of one part (`uploadId` and `partNumber`)."""
    query = request.query_params
    received = await uploads.receive_put(
        key=key, expires=query.get("expires"), signature=query.get("signature"), body=request.stream(),
        content_length=_content_length(request), upload_id=query.get("uploadId"),
        part_number=query.get("partNumber"))
    return Response(status_code=200, headers={"ETag": f'"{received.etag}"'})


@router.post("/uploads/local", include_in_schema=False)
async def local_post(request: Request) -> Response:
    """Local backend: a signed multipart/form-data POST (fields, then `file`), as to an S3 bucket."""
    received = await uploads.receive_post(content_type=request.headers.get("content-type"), body=request.stream(),
                                          content_length=_content_length(request))
    return Response(status_code=204, headers={"ETag": f'"{received.etag}"', "Location": received.location})


