// Relationships between memory nodes. The type comes from a validated enum value.

// name: create
// Idempotent: an existing relationship of this type between the two nodes is returned as it is.
MATCH (a:Memory {namespace: $namespace, id: $source_id})
MATCH (b:Memory {namespace: $namespace, id: $target_id})
OPTIONAL MATCH (a)-[old:$($type)]->(b)
FOREACH (_ IN CASE WHEN old IS NULL THEN [1] ELSE [] END |
  CREATE (a)-[r:$($type)]->(b)
  SET r = $properties
)
WITH a, b, old
MATCH (a)-[r:$($type)]->(b)
RETURN type(r) AS type, a.id AS source_id, b.id AS target_id, r {.*} AS properties, old IS NULL AS created

// name: of_node
// Every relationship touching a node, for the node view.
MATCH (m:Memory {namespace: $namespace, id: $id})-[r]-(other:Memory {namespace: $namespace})
RETURN type(r) AS type, startNode(r).id AS source_id, endNode(r).id AS target_id, r {.*} AS properties
ORDER BY type, source_id, target_id
