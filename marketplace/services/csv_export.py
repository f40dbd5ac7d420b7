"""The one way an export streams orders as CSV (the admin's and the vendor's sales exports).

Orders are read newest first in keyset pages of CHUNK over (created_at, id), each page in its own short
transaction, so memory stays flat however many orders there are and no transaction stays open while the client
reads; each page becomes one chunk of CSV text. The web layer wraps the chunks in a streaming response.
"""

from __future__ import annotations

import csv
import io
import itertools
from collections.abc import Iterable, Iterator
from datetime import datetime
from typing import Any

from sqlalchemy import and_, or_
from sqlmodel import select

from marketplace.db import session_scope
from marketplace.models import Order

CHUNK = 1000


def cell(value: str | None) -> str:
    """Text as a CSV cell that a spreadsheet will not run as a formula."""
    text = value or ""
    return f"'{text}" if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def order_pages(columns: tuple[Any, ...], *conditions: Any) -> Iterator[list[Any]]:
    """The orders matching `conditions`, newest first, CHUNK rows at a time. `columns` start with Order.id and
    include Order.created_at (the keyset)."""
    created = next(i for i, column in enumerate(columns) if column is Order.created_at)
    after: tuple[datetime, str] | None = None
    while True:
        query = select(*columns).where(*conditions)
        if after is not None:
            query = query.where(or_(Order.created_at < after[0],
                                    and_(Order.created_at == after[0], Order.id < after[1])))
        with session_scope() as session:
            rows = session.exec(query.order_by(Order.created_at.desc(), Order.id.desc()).limit(CHUNK)).all()
        if not rows:
            return
        yield list(rows)
        after = (rows[-1][created], rows[-1][0])


def lines(header: tuple[str, ...], pages: Iterable[Iterable[tuple[Any, ...]]]) -> Iterator[str]:
    """The header line, then one chunk of CSV text per page of rows."""
    for rows in itertools.chain([[header]], pages):
        out = io.StringIO()
        csv.writer(out, lineterminator="\r\n").writerows(rows)
        yield out.getvalue()
