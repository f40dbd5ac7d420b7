"""UI building blocks shared by pages."""
