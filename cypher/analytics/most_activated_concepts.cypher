// name: most_activated_concepts
// description: The concepts (and, by default, people) with the highest activation: what the
// description: namespace's memory keeps coming back to. Activation decays with time and rises with recalls.
// param: types list ["Concept", "Person"] Which node types count as concepts
// param: limit int 20 How many to return
MATCH (c:Memory {namespace: $namespace})
USING INDEX c:Memory(namespace)
WHERE any(type IN labels(c) WHERE type IN $types)
RETURN c.id AS id, [label IN labels(c) WHERE label <> 'Memory'][0] AS type, c.label AS label,
       c.activation AS activation, c.access_count AS access_count, c.importance AS importance,
       COUNT { (c)--() } AS degree
ORDER BY activation DESC, access_count DESC, id
LIMIT $limit
