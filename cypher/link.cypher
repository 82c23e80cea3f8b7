// Relationships between memory nodes. The type comes from a validated enum value.

// name: create
// $links: [{type, source_id, target_id, properties}], one row or many, distinct pairs per type.
// Idempotent: an existing relationship of the type between the two nodes is left as it is. Returns
// one row per link with `created`, no properties (the batch writers only count; `get` reads one).
// MERGE between two bound nodes (the MergeInto operator) locks both before it creates, so writers
// stating the same pair at once store it once (a match-then-create stored it once per writer); the
// marker, set and removed within the statement, tells this statement's creations from the others'.
UNWIND $links AS link
MATCH (a:Memory {namespace: $namespace, id: link.source_id})
MATCH (b:Memory {namespace: $namespace, id: link.target_id})
MERGE (a)-[r:$(link.type)]->(b)
  ON CREATE SET r = link.properties, r.created_here = true
WITH link, r, r.created_here IS NOT NULL AS created
REMOVE r.created_here
RETURN link.type AS type, link.source_id AS source_id, link.target_id AS target_id, created

// name: get
// One relationship with its properties.
MATCH (a:Memory {namespace: $namespace, id: $source_id})-[r:$($type)]->(b:Memory {namespace: $namespace, id: $target_id})
RETURN type(r) AS type, a.id AS source_id, b.id AS target_id, r {.*} AS properties

// name: of_node
// Every relationship touching a node, for the node view.
MATCH (m:Memory {namespace: $namespace, id: $id})-[r]-(other:Memory {namespace: $namespace})
RETURN type(r) AS type, startNode(r).id AS source_id, endNode(r).id AS target_id, r {.*} AS properties
ORDER BY type, source_id, target_id
