"""Status and role badges: one colour per value, everywhere the value is shown."""

from __future__ import annotations

import reflex as rx
from reflex.vars import Var


def role_badge(role: Var[str] | str, **props: object) -> rx.Component:
    """admin: destructive (red), vendor: default (accent), anyone else: secondary (gray)."""
    return rx.match(
        role,
        ("admin", rx.badge(role, color_scheme="red", variant="solid", **props)),
        ("vendor", rx.badge(role, variant="solid", **props)),
        rx.badge(role, color_scheme="gray", variant="soft", **props),
    )


def agent_status_badge(status: Var[str] | str, **props: object) -> rx.Component:
    return rx.match(
        status,
        ("approved", rx.badge(rx.icon("circle-check", size=12), "approved", color_scheme="green", **props)),
        ("rejected", rx.badge(rx.icon("circle-x", size=12), "rejected", color_scheme="red", **props)),
        rx.badge(rx.icon("clock", size=12), status, color_scheme="amber", **props),
    )


def payout_status_badge(status: Var[str] | str, **props: object) -> rx.Component:
    """paid, pending and in_transit have their own colour; any other status is shown as failed."""
    return rx.match(
        status,
        ("paid", rx.badge(rx.icon("circle-check", size=12), "paid", color_scheme="green", **props)),
        ("pending", rx.badge(rx.icon("clock", size=12), "pending", color_scheme="amber", **props)),
        ("in_transit", rx.badge(rx.icon("truck", size=12), "in transit", color_scheme="blue", **props)),
        rx.badge(rx.icon("circle-alert", size=12), status, color_scheme="red", **props),
    )


def notification_type_badge(kind: Var[str] | str, **props: object) -> rx.Component:
    return rx.match(
        kind,
        ("approval", rx.badge("approval", color_scheme="green", **props)),
        ("rejection", rx.badge("rejection", color_scheme="red", **props)),
        ("sale", rx.badge("sale", color_scheme="blue", **props)),
        ("update", rx.badge("update", color_scheme="violet", **props)),
        rx.badge(kind, color_scheme="gray", **props),
    )


def license_status_badge(status: Var[str] | str, label: Var[str] | str, **props: object) -> rx.Component:
    """A license key's status (services/licenses): active green, expired gray, disabled and refunded red."""
    return rx.match(
        status,
        ("active", rx.badge(rx.icon("circle-check", size=12), label, color_scheme="green", **props)),
        ("expired", rx.badge(rx.icon("clock", size=12), label, color_scheme="gray", **props)),
        rx.badge(rx.icon("ban", size=12), label, color_scheme="red", **props),
    )
