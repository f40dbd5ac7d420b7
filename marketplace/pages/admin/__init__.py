"""Pages of the admin area: the /admin frame and one module per tab."""
