"""The one streaming response for a CSV export: the service's text chunks as an attachment, never cached."""

from __future__ import annotations

from collections.abc import Iterator

from fastapi.responses import StreamingResponse


def csv_download(chunks: Iterator[str], filename: str) -> StreamingResponse:
    return StreamingResponse(chunks, media_type="text/csv; charset=utf-8",
                             headers={"Content-Disposition": f'attachment; filename="{filename}"',
                                      "Cache-Control": "no-store"})
