"""One module per engine: Neo4j (graph), Redis (hot tier), Qdrant (vectors)."""
