// Export and import of one namespace (app/domain/snapshot.py is the file format).

// name: export_nodes
// One page of the export, after the node id `$after` ('' first): keyset pagination on the
// (namespace, id) uniqueness index, which also hands the rows over in id order (no sort, no SKIP), so
// every page costs the same however far into a 1M-node namespace it is. Ordering by both indexed
// properties is what lets the planner take the index order (by `m.id` alone it sorts the rest of
// the namespace on every page); tests/test_transfer.py checks the plan. SEEK, not a bare index
// hint: with one the planner may scan the whole index in order (every namespace's nodes) and filter,
// as it did once on the test engine's statistics.
MATCH (m:Memory {namespace: $namespace})
USING INDEX SEEK m:Memory(namespace, id)
WHERE m.id > $after
WITH m ORDER BY m.namespace, m.id LIMIT $limit
RETURN m.id AS id, labels(m) AS labels, properties(m) AS properties

// name: export_relationships
// The relationships of the export, paged by source node like `export_nodes`: a row per source
// node after `$after`, with its outgoing relationships; `private`/`agent_id` of both ends let the
// reader drop what touches another agent's private memory.
MATCH (a:Memory {namespace: $namespace})
USING INDEX SEEK a:Memory(namespace, id)
WHERE a.id > $after
WITH a ORDER BY a.namespace, a.id LIMIT $limit
RETURN a.id AS source, {private: a.private, agent_id: a.agent_id} AS visibility,
       [(a)-[r]->(b:Memory {namespace: $namespace}) | {type: type(r), target: b.id, properties: properties(r),
        visibility: {private: b.private, agent_id: b.agent_id}}] AS relationships

// name: import_nodes
// $nodes: [{type, properties}]; every type is a validated NodeType value and every
// properties.namespace is $namespace, with its properties.namespace_term (set again from
// $namespace below, so no row can land in another namespace).
UNWIND $nodes AS node
CREATE (m:Memory:$(node.type))
SET m = node.properties
SET m.namespace = $namespace
RETURN count(m) AS created

// name: import_relationships
// $relationships: [{type, source, target, properties}]; every type is a validated RelType value.
UNWIND $relationships AS rel
MATCH (a:Memory {namespace: $namespace, id: rel.source})
MATCH (b:Memory {namespace: $namespace, id: rel.target})
CREATE (a)-[r:$(rel.type)]->(b)
SET r = rel.properties
RETURN count(r) AS created
