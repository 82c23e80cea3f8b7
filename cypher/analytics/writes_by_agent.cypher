// name: writes_by_agent
// description: Who wrote what: memories per writing agent (`agent_id`; "(none)" for memories
// description: written without one) and node type, with the first and last write.
MATCH (m:Memory {namespace: $namespace})
USING INDEX m:Memory(namespace)
WITH coalesce(m.agent_id, '(none)') AS agent_id, [label IN labels(m) WHERE label <> 'Memory'][0] AS type, m
RETURN agent_id, type, count(m) AS memories, min(m.created_at) AS first_write, max(m.created_at) AS last_write
ORDER BY agent_id, memories DESC, type
