"""The vendor area: applications, own agents, sales and earnings, payouts, track record."""
