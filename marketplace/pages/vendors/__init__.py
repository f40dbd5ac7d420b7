"""Pages of the vendor area: the /vendor frame, one module per tab, and the application form."""
