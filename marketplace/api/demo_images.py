"""The demo agents' pictures (services/demo_images.py): static files with a year-long immutable cache, since
their URLs carry a digest of the bytes. Public, like the catalogue that shows them."""

from __future__ import annotations

from fastapi import APIRouter, Response

from marketplace.services import demo_images
from marketplace.services.errors import NotFound

router = APIRouter(prefix="/api", tags=["catalog"])


@router.get("/demo-images/{file_name}", response_class=Response,
            responses={200: {"content": {"image/svg+xml": {}}, "description": "The picture (SVG)"}})
def demo_image(file_name: str) -> Response:
    data = demo_images.read(file_name)
    if data is None:
        raise NotFound("Image not found")
    return Response(data, media_type="image/svg+xml", headers={"Cache-Control": demo_images.CACHE_CONTROL})
