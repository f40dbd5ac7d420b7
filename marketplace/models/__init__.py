"""All tables, imported here so that metadata (and Alembic) sees every one."""

from marketplace.models.base import ApiModel
from marketplace.models.catalog import Agent, AgentFile, AgentStatus, AgentTag, Category
from marketplace.models.commerce import Order, OrderStatus, ProcessedWebhookEvent, Purchase
from marketplace.models.engagement import Favorite, Report, ReportStatus, ReportType, Review
from marketplace.models.platform import PlatformSetting
from marketplace.models.user import LoginAttempt, OAuthAccount, Role, TwoFactorSetup, User, UserPublic, UserSession
from marketplace.models.vendor import ApplicationStatus, Notification, NotificationType, VendorApplication

__all__ = [
    "Agent",
    "AgentFile",
    "AgentStatus",
    "AgentTag",
    "ApiModel",
    "ApplicationStatus",
    "Category",
    "Favorite",
    "LoginAttempt",
    "Notification",
    "NotificationType",
    "OAuthAccount",
    "Order",
    "OrderStatus",
    "PlatformSetting",
    "ProcessedWebhookEvent",
    "Purchase",
    "Report",
    "ReportStatus",
    "ReportType",
    "Review",
    "Role",
    "TwoFactorSetup",
    "User",
    "UserPublic",
    "UserSession",
    "VendorApplication",
]
