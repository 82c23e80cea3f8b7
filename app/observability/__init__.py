"""Prometheus metrics, JSON-lines logs and the ASGI middleware that feeds both for every request."""
