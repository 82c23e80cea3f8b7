"""The memory model and its pure rules (no framework or engine imports)."""
