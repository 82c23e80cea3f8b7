"""Rule-based extraction from conversation turns (no LLM): facts, times, inferences."""
