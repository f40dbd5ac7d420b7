"""Thin HTTP adapters over the services: parse input, call a service, map errors to statuses."""
