"""Pages: UI only, bound to states."""
