"""Context management: the circuit breaker that watches an agent's run, and the context builder."""
