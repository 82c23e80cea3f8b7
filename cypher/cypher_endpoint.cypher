// Support of the analysts' read-only Cypher endpoint (app/analytics/cypher_surface.py). The analysts' own
// named queries live in cypher/analytics/, one per file, and are not loaded with these.

// name: end_ids
// The `id` of relationship ends a result returned without their nodes, by element id; only the
// namespace's memory nodes are found (an end outside it fails the request).
UNWIND $element_ids AS element_id
MATCH (m:Memory)
WHERE elementId(m) = element_id AND m.namespace = $namespace
RETURN elementId(m) AS element_id, m.id AS id

// name: hidden_private
// How many private memories of other agents the namespace holds. The endpoint's queries read every
// memory of the namespace, so a key that may not see those (not an admin of the namespace) is
// refused while any exist.
MATCH (m:Memory {namespace: $namespace, private: true})
USING INDEX m:Memory(namespace, private)
WHERE ($agent_id IS NULL OR coalesce(m.agent_id, '') <> $agent_id)
RETURN count(m) AS hidden
