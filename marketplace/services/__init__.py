"""Business rules. Every function takes the acting user explicitly and raises a DomainError."""
