"""Development and test tooling; never imported by the product (the `marketplace` package)."""
