// name: orphans
// description: Memories with no relationship at all: saved without links and never linked since
// description: (no SEMANTIC neighbour above the threshold, never recalled with another memory).
// param: limit int 100 How many to return
MATCH (m:Memory {namespace: $namespace})
USING INDEX m:Memory(namespace)
WHERE NOT EXISTS { (m)--() }
RETURN m.id AS id, [label IN labels(m) WHERE label <> 'Memory'][0] AS type, m.summary AS summary,
       m.importance AS importance, m.created_at AS created_at
ORDER BY created_at DESC, id
LIMIT $limit
