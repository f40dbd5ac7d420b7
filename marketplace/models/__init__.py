"""All tables, imported here so that metadata (and Alembic) sees every one, and the schemas several areas use.

Each area's request and answer schemas live in its module, beside its tables (see the README's Layout)."""

from marketplace.models.admin import AgentView, AuditEntry
from marketplace.models.base import ApiInput, ApiModel, MessageOut
from marketplace.models.catalog import (
    Agent,
    AgentFile,
    AgentListingCount,
    AgentPage,
    AgentPublic,
    AgentStatus,
    AgentTag,
    Category,
    CategoryPublic,
    CategoryRef,
    StatsPublic,
    VendorRef,
)
from marketplace.models.commerce import Order, OrderDayTotal, OrderStatus, ProcessedWebhookEvent, Purchase
from marketplace.models.engagement import (
    Favorite,
    FavoriteStatus,
    Report,
    ReportedStatus,
    ReportPublic,
    ReportStatus,
    ReportType,
    Review,
    ReviewAuthor,
    ReviewPage,
    ReviewPublic,
)
from marketplace.models.mail import OutboxMail
from marketplace.models.platform import PlatformSetting
from marketplace.models.ratelimit import RateLimitHit
from marketplace.models.submissions import AgentDownload, AgentRevision, RevisionStatus, Upload, UploadMethod
from marketplace.models.user import (
    AccountToken,
    LoginAttempt,
    OAuthAccount,
    Role,
    TokenPurpose,
    TwoFactorSetup,
    User,
    UserPublic,
    UserSession,
)
from marketplace.models.vendor import ApplicationStatus, Notification, NotificationType, VendorApplication

__all__ = [
    "AccountToken",
    "Agent",
    "AgentDownload",
    "AgentFile",
    "AgentListingCount",
    "AgentPage",
    "AgentPublic",
    "AgentRevision",
    "AgentStatus",
    "AgentTag",
    "AgentView",
    "ApiInput",
    "ApiModel",
    "ApplicationStatus",
    "AuditEntry",
    "Category",
    "CategoryPublic",
    "CategoryRef",
    "Favorite",
    "FavoriteStatus",
    "LoginAttempt",
    "MessageOut",
    "Notification",
    "NotificationType",
    "OAuthAccount",
    "Order",
    "OrderDayTotal",
    "OrderStatus",
    "OutboxMail",
    "PlatformSetting",
    "ProcessedWebhookEvent",
    "Purchase",
    "RateLimitHit",
    "Report",
    "ReportPublic",
    "ReportStatus",
    "ReportType",
    "ReportedStatus",
    "Review",
    "ReviewAuthor",
    "ReviewPage",
    "ReviewPublic",
    "RevisionStatus",
    "Role",
    "StatsPublic",
    "TokenPurpose",
    "TwoFactorSetup",
    "Upload",
    "UploadMethod",
    "User",
    "UserPublic",
    "UserSession",
    "VendorApplication",
    "VendorRef",
]
