"""Adapters for external providers (payments, file storage, sign-in), each behind a small interface."""
