"""API keys: who may call, with which role on which namespace."""
