"""States of /vendor and /vendor/apply: the page decides what the user may see, one substate per tab loads it."""
