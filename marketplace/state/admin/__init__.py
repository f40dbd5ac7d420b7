"""States of /admin: the page decides who may look, one substate per tab loads it when the tab opens."""
