"""An agent as a vendor submits it (the wizard's draft) and the one set of rules that checks it.

The wizard (state/vendors/wizard.py) and `POST/PUT /api/vendor/agents` both pass an `AgentDraft` to
services/vendors/agents.py, which cleans it here; the messages below are the texts both show.
Every error is `Invalid(message, field=<draft field, snake_case>)`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from sqlmodel import Session

from marketplace.models import Category, PricingModel
from marketplace.services import demo_images, money
from marketplace.services.errors import Invalid, InvalidParameter
from marketplace.services.images import MAX_URL, is_web_url  # agents.image_url / demo_url
from marketplace.services.text import NOT_ALLOWED, has_forbidden, is_digits, plain_number

MAX_NAME = 200  # agents.name
MAX_SHORT_DESCRIPTION = 500  # agents.short_description
MAX_DESCRIPTION = 20_000  # agents.description is Text; a listing page is not a book
MAX_TAGS = 5
MAX_TAG = 50  # agent_tags.tag
MAX_PRICE_CENTS = 10_000_000  # 100000.00 (a month, or once)
MAX_PRICE_TEXT = 20
MAX_CATEGORY_ID = 2**31 - 1  # categories.id is a 32-bit integer
DEFAULT_ACTIVATION_LIMIT = 3  # machines per license key, for a new agent
MAX_ACTIVATION_LIMIT = 100
UNLIMITED = "unlimited"  # what the wizard and the API send for no limit
MAX_TRIAL_DAYS = 30

NAME_REQUIRED = "Name is required"
NAME_TOO_LONG = f"Name must be at most {MAX_NAME} characters"
SHORT_REQUIRED = "Short description is required"
SHORT_TOO_LONG = f"Short description must be at most {MAX_SHORT_DESCRIPTION} characters"
DESCRIPTION_REQUIRED = "Description is required"
DESCRIPTION_TOO_LONG = f"Description must be at most {MAX_DESCRIPTION} characters"
PRICE_REQUIRED = "Price is required"
PRICE_INVALID = "Price must be a number such as 29.99"
PRICE_NEGATIVE = "Price cannot be negative"
PRICE_DECIMALS = "Price can have at most 2 decimals"
PRICE_TOO_HIGH = f"Price must be at most {money.format_cents(MAX_PRICE_CENTS)}"
PRICING_MODEL_INVALID = "Pricing model must be 'monthly' (a monthly subscription) or 'one_time' (a one-time licence)"
ACTIVATION_LIMIT_INVALID = f"Activation limit must be a whole number from 1 to {MAX_ACTIVATION_LIMIT}, or {UNLIMITED}"
TRIAL_DAYS_INVALID = f"Free trial must be a whole number of days from 0 (no trial) to {MAX_TRIAL_DAYS}"
TRIAL_NEEDS_MONTHLY = "A free trial is for monthly subscriptions only: set it to 0 for a one-time licence"
CATEGORY_REQUIRED = "Category is required"
CATEGORY_UNKNOWN = "Category not found"
DEMO_URL_INVALID = "Demo URL must be a valid http(s) URL"
IMAGE_URL_INVALID = "Image URL must be a valid http(s) URL"
TOO_MANY_TAGS = "Maximum 5 tags allowed to prevent spam"
TAG_TOO_LONG = f"Each tag must be at most {MAX_TAG} characters"
CONTROL_CHARACTERS = NOT_ALLOWED


@dataclass(frozen=True)
class AgentDraft:
    """What the vendor typed; nothing checked yet. `price` is the text of a number ("29.99")."""

    name: str = ""
    short_description: str = ""
    description: str = ""
    price: str = ""
    category_id: int | str | None = None
    demo_url: str | None = None
    image_url: str | None = None
    tags: list[str] = field(default_factory=list)
    pricing_model: str | None = None  # None: the agent's current model (monthly for a new agent)
    # machines per license key: 1-100 (a number or its text) or "unlimited"; None: the agent's current limit
    # (3 for a new agent)
    activation_limit: int | str | None = None
    # A live agent's edit that changes files: the new version's label and release notes (services/versions/labels).
    # None: the pending revision's, if any.
    version_label: str | None = None
    release_notes: str | None = None
    # free days before a new subscriber's first charge: 0-30 (a number or its text); None: the agent's current
    # trial (none for a new agent)
    trial_days: int | str | None = None


@dataclass(frozen=True)
class CleanDraft:
    """A checked draft, in the agent's column values."""

    name: str
    short_description: str
    description: str
    price_cents: int
    category_id: int
    demo_url: str | None
    image_url: str | None
    tags: tuple[str, ...]
    pricing_model: str = PricingModel.MONTHLY
    activation_limit: int | None = DEFAULT_ACTIVATION_LIMIT  # None: unlimited
    trial_days: int = 0

    def values(self) -> dict[str, Any]:
        """The agent columns (tags excluded) as a dict, e.g. for a revision's `changes` (checked values, each of
        its column's type)."""
        return {"name": self.name, "short_description": self.short_description, "description": self.description,
                "price_cents": self.price_cents, "pricing_model": self.pricing_model,
                "activation_limit": self.activation_limit, "trial_days": self.trial_days,
                "category_id": self.category_id,
                "demo_url": self.demo_url, "image_url": self.image_url}


def _text(value: str | None, *, field_name: str, label: str, required: str, too_long: str, limit: int,
          multiline: bool = False) -> str:
    text = (value or "").strip()
    if not text:
        raise Invalid(required, field=field_name)
    if len(text) > limit:
        raise Invalid(too_long, field=field_name)
    if has_forbidden(text, multiline=multiline):
        raise InvalidParameter(CONTROL_CHARACTERS.format(label=label), field=field_name)
    return text


def parse_price(value: str | int | float | None) -> int:
    """'29.99' -> 2999: plain digits (`text.plain_number`), at most 2 decimals, at most 100000.00."""
    text = str(value).strip() if value is not None else ""
    if not text:
        raise Invalid(PRICE_REQUIRED, field="price")
    amount = plain_number(text) if len(text) <= MAX_PRICE_TEXT else None
    if amount is None:
        negative = text.startswith("-") and plain_number(text[1:]) is not None
        raise Invalid(PRICE_NEGATIVE if negative else PRICE_INVALID, field="price")
    if amount != amount.quantize(Decimal("0.01")):
        raise Invalid(PRICE_DECIMALS, field="price")
    cents = money.round_half_up(amount * 100)
    if cents > MAX_PRICE_CENTS:
        raise Invalid(PRICE_TOO_HIGH, field="price")
    return cents


def parse_pricing_model(value: str | None, *, current: str = PricingModel.MONTHLY) -> str:
    """'monthly' or 'one_time'; not given -> `current` (so an edit that leaves it out keeps the agent's)."""
    if value is None:
        return current
    text = str(value).strip()
    if text not in tuple(PricingModel):
        raise Invalid(PRICING_MODEL_INVALID, field="pricing_model")
    return text


def parse_activation_limit(value: int | str | None, *, current: int | None = DEFAULT_ACTIVATION_LIMIT
                           ) -> int | None:
    """1-100 (a whole number, or its digits as text) or 'unlimited' (-> None); not given -> `current`, so an
    edit that leaves it out keeps the agent's limit."""
    if value is None:
        return current
    if isinstance(value, bool):
        raise Invalid(ACTIVATION_LIMIT_INVALID, field="activation_limit")
    text = value.strip().lower() if isinstance(value, str) else ""
    if text == UNLIMITED:
        return None
    if isinstance(value, int):
        number = value
    elif is_digits(text) and len(text) <= 3:
        number = int(text)
    else:
        raise Invalid(ACTIVATION_LIMIT_INVALID, field="activation_limit")
    if not 1 <= number <= MAX_ACTIVATION_LIMIT:
        raise Invalid(ACTIVATION_LIMIT_INVALID, field="activation_limit")
    return number


def parse_trial_days(value: int | str | None, *, pricing_model: str, current: int = 0) -> int:
    """0-30 free days (a whole number, or its digits as text); not given -> `current`, so an edit that leaves it
    out keeps the agent's trial. A one-time licence has none (a trial given with one is refused; the current
    trial of an agent switched to one-time is dropped)."""
    if value is None:
        return current if pricing_model == PricingModel.MONTHLY else 0
    if isinstance(value, bool):
        raise Invalid(TRIAL_DAYS_INVALID, field="trial_days")
    text = value.strip() if isinstance(value, str) else ""
    if isinstance(value, int):
        days = value
    elif is_digits(text) and len(text) <= 2:
        days = int(text)
    else:
        raise Invalid(TRIAL_DAYS_INVALID, field="trial_days")
    if not 0 <= days <= MAX_TRIAL_DAYS:
        raise Invalid(TRIAL_DAYS_INVALID, field="trial_days")
    if days and pricing_model != PricingModel.MONTHLY:
        raise Invalid(TRIAL_NEEDS_MONTHLY, field="trial_days")
    return days


def parse_category_id(value: int | str | None) -> int:
    if value is None or isinstance(value, bool) or (isinstance(value, str) and not value.strip()):
        raise Invalid(CATEGORY_REQUIRED, field="category_id")
    if isinstance(value, int):
        if not 0 < value <= MAX_CATEGORY_ID:
            raise Invalid(CATEGORY_UNKNOWN, field="category_id")  # beyond the column: would fail in the database
        return value
    text = str(value).strip()
    if not is_digits(text) or len(text) > 9:
        raise Invalid(CATEGORY_UNKNOWN, field="category_id")
    return int(text)  # at most 9 digits: inside any integer column


def clean_url(value: str | None, *, field_name: str, message: str, shipped_picture: bool = False) -> str | None:
    """Empty -> None; otherwise an absolute http(s) URL with a host, no spaces or control characters, or (for a
    picture) the address of one of the app's shipped pictures, which demo agents have and keep on an edit."""
    text = (value or "").strip()
    if not text:
        return None
    if shipped_picture and demo_images.is_shipped_url(text):
        return text
    if len(text) > MAX_URL or not is_web_url(text):
        raise Invalid(message, field=field_name)
    return text


def normalise_tags(tags: list[str] | tuple[str, ...] | None) -> tuple[str, ...]:
    """Trimmed, lower case (the catalogue's tag filter is), empty and repeated ones dropped; at most 5 of
    at most 50 characters."""
    cleaned = tuple(dict.fromkeys(t.strip().lower() for t in tags or () if t and t.strip()))
    if len(cleaned) > MAX_TAGS:
        raise Invalid(TOO_MANY_TAGS, field="tags")
    if any(len(t) > MAX_TAG for t in cleaned):
        raise Invalid(TAG_TOO_LONG, field="tags")
    if any(has_forbidden(t) for t in cleaned):
        raise InvalidParameter(CONTROL_CHARACTERS.format(label="A tag"), field="tags")
    return cleaned


def parse_tags(text: str) -> list[str]:
    """The wizard's comma-separated tag field: 'ai, , Writing ' -> ['ai', 'writing']."""
    return list(normalise_tags((text or "").split(",")))


def clean_draft(session: Session, draft: AgentDraft, *, current_model: str = PricingModel.MONTHLY,
                current_limit: int | None = DEFAULT_ACTIVATION_LIMIT, current_trial_days: int = 0) -> CleanDraft:
    """Check every field in the wizard's order (first error wins) and that the category exists.
    `current_model`, `current_limit` and `current_trial_days` are the edited agent's, kept when the draft does
    not name them."""
    name = _text(draft.name, field_name="name", label="Name", required=NAME_REQUIRED, too_long=NAME_TOO_LONG,
                 limit=MAX_NAME)
    short = _text(draft.short_description, field_name="short_description", label="Short description",
                  required=SHORT_REQUIRED, too_long=SHORT_TOO_LONG, limit=MAX_SHORT_DESCRIPTION)
    description = _text(draft.description, field_name="description", label="Description",
                         required=DESCRIPTION_REQUIRED, too_long=DESCRIPTION_TOO_LONG, limit=MAX_DESCRIPTION,
                         multiline=True)
    image_url = clean_url(draft.image_url, field_name="image_url", message=IMAGE_URL_INVALID, shipped_picture=True)
    demo_url = clean_url(draft.demo_url, field_name="demo_url", message=DEMO_URL_INVALID)
    price_cents = parse_price(draft.price)
    pricing_model = parse_pricing_model(draft.pricing_model, current=current_model)
    activation_limit = parse_activation_limit(draft.activation_limit, current=current_limit)
    trial_days = parse_trial_days(draft.trial_days, pricing_model=pricing_model, current=current_trial_days)
    category_id = parse_category_id(draft.category_id)
    if session.get(Category, category_id) is None:
        raise Invalid(CATEGORY_UNKNOWN, field="category_id")
    tags = normalise_tags(draft.tags)
    return CleanDraft(name=name, short_description=short, description=description, price_cents=price_cents,
                      category_id=category_id, demo_url=demo_url, image_url=image_url, tags=tags,
                      pricing_model=pricing_model, activation_limit=activation_limit, trial_days=trial_days)
