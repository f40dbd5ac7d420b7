"""Password hashing: production runs argon2id at the library's recommended cost; the suite runs the cheapest
profile through one fixture (tests/conftest.py), and hashes made at either cost verify."""

from __future__ import annotations

from argon2 import extract_parameters, profiles

from marketplace.services import auth


def test_production_hashes_with_argon2id_at_the_recommended_cost(production_hashing):
    stored = auth.hash_password("correct horse")
    parameters = extract_parameters(stored)
    assert stored.startswith("$argon2id$")
    assert (parameters.time_cost, parameters.memory_cost, parameters.parallelism) == (3, 65536, 4)
    assert auth.password_ok(stored, "correct horse")
    assert not auth.password_ok(stored, "wrong horse")
    assert not auth.password_ok(None, "correct horse")


def test_the_production_parameters_are_the_default_when_nothing_swaps_them():
    assert auth.PRODUCTION_HASHING == profiles.RFC_9106_LOW_MEMORY
    assert auth.PRODUCTION_HASHING.memory_cost >= 65536


def test_the_suite_hashes_cheaply_and_both_costs_verify(production_hashing):
    strong = auth.hash_password("pw-strong")
    previous = auth.use_hashing(profiles.CHEAPEST)
    try:
        cheap = auth.hash_password("pw-cheap")
        assert extract_parameters(cheap).memory_cost == profiles.CHEAPEST.memory_cost
        assert auth.password_ok(strong, "pw-strong") and auth.password_ok(cheap, "pw-cheap")
    finally:
        auth.use_hashing(previous)
