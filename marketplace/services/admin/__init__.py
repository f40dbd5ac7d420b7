"""The admin area: moderation of vendors and agents, users, reports, analytics, settings (audit: services/audit)."""
