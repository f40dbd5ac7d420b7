"""Categories, agents, their tags and their files."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

import pydantic
from sqlalchemy import Column, Index, Integer, String, Text, text
from sqlmodel import Field, SQLModel

from marketplace.models.base import ApiModel, new_id, utcnow

_LIVE_SQL = "status = 'approved' AND deleted_at IS NULL"


class AgentStatus(StrEnum):
    PENDING = "pending"
    APPROVED = "approved"
    REJECTED = "rejected"


class Category(SQLModel, table=True):
    __tablename__ = "categories"

    id: int | None = Field(default=None, primary_key=True)
    slug: str = Field(sa_column=Column(String(64), unique=True, nullable=False))
    name: str = Field(max_length=100)
    emoji: str = Field(default="", max_length=16)
    description: str = Field(default="", sa_column=Column(Text, nullable=False, default=""))
    sort_order: int = 0


class Agent(SQLModel, table=True):
    __tablename__ = "agents"
    __table_args__ = (
        # Browse: partial indexes over live agents only (revision 0002, which replaced the full
        # (status, deleted_at, ...) indexes of 0001): one per browse order, ids make the order total.
        *(
            Index(name, *columns, postgresql_where=text(_LIVE_SQL), sqlite_where=text(_LIVE_SQL))
            for name, columns in {
                "ix_agents_pub_newest": ("created_at", "id"),
                "ix_agents_pub_sales": ("sales_count", "id"),
                "ix_agents_pub_rating": ("avg_rating", "review_count", "id"),
                "ix_agents_pub_price": ("price_cents", "id"),
                "ix_agents_pub_category": ("category_id", "created_at", "id"),
                "ix_agents_pub_featured": ("is_featured", "created_at", "id"),
                "ix_agents_pub_views": ("view_count", "id"),
                "ix_agents_pub_favorites": ("favorites_count", "id"),  # Most Saved (revision 0011)
            }.items()
        ),
        # Admin: every agent not deleted, newest first, whole or by status, and the quality summary's
        # counts and mean rating from the index alone (revision 0011).
        Index("ix_agents_admin_created", "created_at", "id",
              postgresql_where=text("deleted_at IS NULL"), sqlite_where=text("deleted_at IS NULL")),
        Index("ix_agents_admin_status", "status", "created_at", "id",
              postgresql_where=text("deleted_at IS NULL"), sqlite_where=text("deleted_at IS NULL")),
        Index("ix_agents_admin_quality", "status", "review_count", "avg_rating",
              postgresql_where=text("deleted_at IS NULL"), sqlite_where=text("deleted_at IS NULL")),
    )

    id: str = Field(default_factory=new_id, primary_key=True, max_length=32)
    vendor_id: str | None = Field(default=None, foreign_key="users.id", index=True, max_length=32, ondelete="SET NULL")
    category_id: int | None = Field(default=None, foreign_key="categories.id", index=True, ondelete="SET NULL")
    name: str = Field(max_length=200)
    short_description: str = Field(default="", max_length=500)
    description: str = Field(default="", sa_column=Column(Text, nullable=False, default=""))
    price_cents: int = Field(default=0, ge=0)
    pricing_model: str = Field(default="monthly", max_length=16)  # models.billing.PricingModel
    image_url: str | None = Field(default=None, max_length=1000)
    demo_url: str | None = Field(default=None, max_length=1000)
    status: str = Field(default=AgentStatus.PENDING, max_length=16, index=True)
    rejection_reason: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    is_featured: bool = False
    rating_sum: int = 0
    review_count: int = 0
    avg_rating: float = 0.0
    sales_count: int = 0
    favorites_count: int = 0
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)
    reviewed_at: datetime | None = None  # when approved or rejected
    deleted_at: datetime | None = None
    current_version: int = 1  # the file set buyers download; a new one goes live when an admin approves it
    view_count: int = 0  # distinct visitors per day on its page (agent_views rows), for Most Viewed
    # How many machines one license key may be activated on (1-100; None: unlimited), set by the vendor.
    # (No column default: the ORM would write it in place of an explicit None; revision 0018 sets one in SQL.)
    activation_limit: int | None = Field(default=3, sa_column=Column(Integer, nullable=True))
    # Free days before a new subscriber's first charge (0: none, 1-30; monthly agents only).
    trial_days: int = Field(default=0, sa_column=Column(Integer, nullable=False, server_default="0"))


class AgentTag(SQLModel, table=True):
    __tablename__ = "agent_tags"
    __table_args__ = (Index("ix_agent_tags_tag_agent", "tag", "agent_id"),)

    agent_id: str = Field(foreign_key="agents.id", primary_key=True, max_length=32, ondelete="CASCADE")
    tag: str = Field(primary_key=True, max_length=50)
    position: int = 0


class AgentFile(SQLModel, table=True):
    """A stored file of one version of an agent; `storage_key` addresses it in the storage backend.

    Version `agent.current_version` is what buyers download. A pending revision of a live agent collects
    its files as version `current_version + 1`, starting as copies of the current rows (same storage keys),
    so an object is deleted only when no row refers to it any more.
    """

    __tablename__ = "agent_files"
    __table_args__ = (Index("ix_agent_files_agent_version", "agent_id", "version"),)

    id: str = Field(default_factory=new_id, primary_key=True, max_length=32)
    agent_id: str = Field(foreign_key="agents.id", index=True, max_length=32, ondelete="CASCADE")
    version: int = 1
    storage_key: str = Field(max_length=500)
    filename: str = Field(max_length=255)
    size_bytes: int = 0
    content_type: str = Field(default="application/octet-stream", max_length=255)
    created_at: datetime = Field(default_factory=utcnow)


class AgentListingCount(SQLModel, table=True):
    """Live agents per (category, price band, rating band, featured), kept exact by triggers (revision 0002).

    Every browse filter except text search and tags is a union of these cells, so the total of such a
    listing is a sum over at most a few hundred rows instead of a count over all agents.
    `category_id` 0 stands for "no category". Bands: see `services.catalog.price_band`/`rating_band`.
    """

    __tablename__ = "agent_listing_counts"

    category_id: int = Field(default=0, primary_key=True, sa_column_kwargs={"autoincrement": False})
    price_band: int = Field(default=0, primary_key=True, sa_column_kwargs={"autoincrement": False})
    rating_band: int = Field(default=0, primary_key=True, sa_column_kwargs={"autoincrement": False})
    is_featured: bool = Field(default=False, primary_key=True)
    live_count: int = 0


# ---- API schemas (camelCase on the wire) ----------------------------------------------------------------


class VendorRef(ApiModel):
    id: str
    username: str


class CategoryRef(ApiModel):
    id: int
    name: str
    slug: str
    emoji: str


class AgentRead(ApiModel):
    """What every read of an agent shows: the public one, the admin's (models/admin_reads.py) and the vendor's own
    (models/vendor.py). Money and rating are decimal strings; each read adds its own fields."""

    id: str
    name: str
    short_description: str
    price: str
    pricing_model: str = "monthly"  # models.billing.PricingModel: 'monthly' or 'one_time'
    trial_days: int = pydantic.Field(default=0, description="Free days before a new subscriber's first charge "
                                                            "(monthly agents; 0: no trial)")
    image_url: str | None = None
    is_approved: bool
    status: str
    rejection_reason: str | None = None
    avg_rating: str
    review_count: int
    category_id: int | None = None
    created_at: datetime


class AgentListed(AgentRead):
    """A read that shows the agent as listed: its text, demo, tags and vendor (public and admin)."""

    description: str
    demo_url: str | None = None
    tags: list[str]
    vendor_id: str | None = None
    vendor: VendorRef | None = None  # null when it has none or it was deleted (UI: Unknown)


class AgentPublic(AgentListed):
    """An agent as `/api/agents*` shows it (spec section 3). Money and rating are decimal strings."""

    file_url: str | None = None
    is_featured: bool
    category: CategoryRef | None = None
    updated_at: datetime
    scanned_at: datetime | None = None  # GET /api/agents/{id}: when every file was last found clean by a scan


class AgentPage(ApiModel):
    """One page of a listing plus the number of matches across all pages."""

    items: list[AgentPublic]
    total: int


class CategoryFacet(ApiModel):
    id: int
    slug: str
    count: int


class FilterFacet(ApiModel):
    """A price or rating filter value (as `/api/agents` takes it) and how many agents it would list."""

    value: str
    count: int


class AgentFacets(ApiModel):
    """`/api/agents/facets`: per filter option, the number of live agents the list would hold with it."""

    categories: list[CategoryFacet]
    prices: list[FilterFacet]
    ratings: list[FilterFacet]


class CategoryPublic(ApiModel):
    id: int
    slug: str
    name: str
    emoji: str
    description: str
    agent_count: int


class StatsPublic(ApiModel):
    total_agents: int
    total_categories: int
    total_users: int
