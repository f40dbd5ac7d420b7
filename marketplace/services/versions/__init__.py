"""Agent versions: labels and release notes (rules, safe rendering), the published versions and their
downloads (which are kept, which objects may go), and the leases of downloads in flight."""
