"""Hippograph: shared long-term memory for LLM agents."""
