// name: next_prune
// description: What the next prune would remove first, in the prune's own order
// description: (cypher/forgetting.cypher prune_candidates): lowest activation x importance weight, then least
// description: recently accessed; never MUST_REMEMBER, never a node on a structural (protected) relationship.
// description: A prune only runs when the namespace holds more than its capacity.
// param: prune_weights map {"TRIVIAL": 0.1, "NORMAL": 0.3, "IMPORTANT": 0.6, "FACT": 0.8, "IDENTITY": 0.9, "MUST_REMEMBER": 1.0} Prune weight per importance (app/domain/model.py)
// param: limit int 50 How many candidates to return
MATCH (m:Memory {namespace: $namespace})
USING INDEX m:Memory(namespace)
WHERE m.importance <> 'MUST_REMEMBER'
  AND NOT EXISTS { (m)-[:HIERARCHY|DEPENDENCY|TEMPORAL]-() }
WITH m, m.activation * $prune_weights[m.importance] AS score
ORDER BY score ASC, m.last_accessed ASC, m.id ASC
LIMIT $limit
RETURN m.id AS id, [label IN labels(m) WHERE label <> 'Memory'][0] AS type, m.summary AS summary,
       m.importance AS importance, m.activation AS activation, score, m.last_accessed AS last_accessed
