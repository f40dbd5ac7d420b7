"""Reflex states: thin adapters that call services and turn domain errors into toasts."""
