"""The query parameters of a listing: which filter values exist, and `parse_filters`, which checks the raw
query-string values of `/api/agents` (the pages pass theirs through it too) and names the wrong parameter
in an `InvalidParameter` (422)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TypedDict

from marketplace.services.catalog import search as fulltext
from marketplace.services.errors import InvalidParameter
from marketplace.services.paging import check_page
from marketplace.services.text import is_digits

DEFAULT_LIMIT = 24
MAX_TAGS = 10
ANY = "any"  # no price or rating filter, as an address or a form says it

# The price filters: (lower bound exclusive, upper bound inclusive), in cents; None = unbounded. "free" is
# exactly 0. Each set offered tiles the paid range without overlap: 10.00 is in "0-10", 10.01 in "10-50",
# 100.50 in "100+".
PRICE_RANGES: dict[str, tuple[int | None, int | None]] = {
    "free": (None, 0),
    "0-10": (0, 1_000),
    "10-50": (1_000, 5_000),
    "50-100": (5_000, 10_000),
    "100+": (10_000, None),
    "1-25": (0, 2_500),
    "26-50": (2_500, 5_000),
    "51-100": (5_000, 10_000),
}
BROWSE_PRICES = ("free", "0-10", "10-50", "50-100", "100+")  # offered by /agents
HOME_PRICES = ("free", "1-25", "26-50", "51-100", "100+")  # offered by the home page's quick search
# The rating filters: the least average rating each admits ("" and "any": no filter).
RATING_MINIMUMS: dict[str, float | None] = {"5": 5.0, "4+": 4.0, "3+": 3.0, "2+": 2.0, ANY: None, "": None}
RATING_FILTERS = tuple(key for key, minimum in RATING_MINIMUMS.items() if minimum is not None)
SORTS = ("newest", "popularity", "rating", "price-low", "price-high", "relevance")
_SLUG = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}$")
_TRUE, _FALSE = {"true", "1", "yes", "on"}, {"false", "0", "no", "off", ""}


def _with_lost_plus(value: str, keys: Iterable[str]) -> str:
    """Trimmed, lower case, and a '+' put back when the value names a key without it: a '+' typed into a
    URL arrives as a space ("4+" -> "4 "), so "4" and "100" are read as "4+" and "100+"."""
    value = value.strip().lower()
    return f"{value}+" if value and f"{value}+" in keys else value


def normalise_price(value: str) -> str:
    """A price filter value as an address or form may carry it, as a key of `PRICE_RANGES` when it
    names one ("100" -> "100+", " Free " -> "free"); other values come back trimmed and lower case."""
    return _with_lost_plus(value, PRICE_RANGES)


def normalise_rating(value: str) -> str:
    """A rating filter value as an address or form may carry it, as a key of `RATING_FILTERS` when it
    names one ("4" -> "4+"); other values come back trimmed and lower case."""
    return _with_lost_plus(value, RATING_FILTERS)


def price_filter(value: str | None) -> str:
    """The price filter a page keeps for a value read from its address: a key of `PRICE_RANGES`, or
    `ANY` for a missing or unknown value (pages fall back quietly; `parse_filters` refuses)."""
    key = normalise_price(value or ANY)
    return key if key in PRICE_RANGES else ANY


def rating_filter(value: str | None) -> str:
    """As `price_filter`, for ratings: a key of `RATING_FILTERS`, or `ANY`."""
    key = normalise_rating(value or ANY)
    return key if key in RATING_FILTERS else ANY


@dataclass(frozen=True)
class AgentFilters:
    """Validated `/api/agents` parameters."""

    search: fulltext.SearchQuery | None = None
    category: int | str | None = None  # id or slug
    price: tuple[int | None, int | None] | None = None
    min_rating: float | None = None
    tags: tuple[str, ...] = ()
    featured: bool = False
    sort: str | None = None
    limit: int = DEFAULT_LIMIT
    offset: int = 0


def _choice(name: str, value: str | None, options: Iterable[str]) -> str | None:
    if value is None:
        return None
    value = value.strip().lower()
    options = list(options)
    if value not in options:
        shown = ", ".join(o for o in options if o) or "nothing"
        raise InvalidParameter(f"{name} must be one of {shown}", field=name)
    return value


def _whole_number(name: str, value: int | str) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    text = str(value).strip()
    if not re.fullmatch(r"-?\d{1,9}", text):
        raise InvalidParameter(f"{name} must be a whole number", field=name)
    return int(text)


class RawFilters(TypedDict, total=False):
    """The query-string values of `/api/agents`, as `parse_filters` takes them."""

    search: str | None
    category: str | int | None
    price: str | None
    rating: str | None
    sort: str | None
    tags: Sequence[str] | str | None
    featured: str | bool | None
    limit: int | str | None
    offset: int | str | None


def parse_filters(
    *,
    search: str | None = None,
    category: str | int | None = None,
    price: str | None = None,
    rating: str | None = None,
    sort: str | None = None,
    tags: Sequence[str] | str | None = None,
    featured: str | bool | None = None,
    limit: int | str | None = None,
    offset: int | str | None = None,
) -> AgentFilters:
    """Check each parameter and say which one is wrong. Blank values mean "no filter"."""
    price_key = _choice("price", None if price is None else normalise_price(price), ["", ANY, *PRICE_RANGES])
    rating_key = _choice("rating", None if rating is None else normalise_rating(rating), RATING_MINIMUMS)
    sort_key = _choice("sort", sort, ["", *SORTS]) or None

    category_ref: int | str | None = None
    if isinstance(category, int):
        category_ref = category
    elif category is not None and category.strip() and category.strip().lower() not in {"all", "any"}:
        value = category.strip().lower()
        if is_digits(value) and len(value) < 10:
            category_ref = int(value)
        elif _SLUG.match(value):
            category_ref = value
        else:
            raise InvalidParameter("category must be a category id or slug", field="category")

    if isinstance(tags, str):
        tags = [tags]
    tag_list = tuple(dict.fromkeys(t.strip().lower() for t in tags or () if t and t.strip()))
    if len(tag_list) > MAX_TAGS or any(len(t) > 50 for t in tag_list):
        raise InvalidParameter(f"tag: at most {MAX_TAGS} tags of at most 50 characters", field="tag")

    if isinstance(featured, str):
        flag = featured.strip().lower()
        if flag not in _TRUE | _FALSE:
            raise InvalidParameter("featured must be true or false", field="featured")
        featured = flag in _TRUE

    limit = DEFAULT_LIMIT if limit is None or limit == "" else _whole_number("limit", limit)
    offset = 0 if offset is None or offset == "" else _whole_number("offset", offset)
    check_page(limit=limit, offset=offset)

    return AgentFilters(
        search=fulltext.parse_query(search),
        category=category_ref,
        price=PRICE_RANGES.get(price_key or ""),
        min_rating=RATING_MINIMUMS[rating_key] if rating_key is not None else None,
        tags=tag_list,
        featured=bool(featured),
        sort=sort_key,
        limit=limit,
        offset=offset,
    )
