"""The analysts' read-only Cypher surface: the plan guard, the analytics catalogue, value conversion."""
