// Memory nodes: `:Memory` plus exactly one type label, keyed by (namespace, id).

// name: create
// Creates the node unless its id exists (a retried request creates nothing new). The type label
// comes from a validated enum value, passed as a parameter.
MATCH (:Namespace {name: $namespace})
OPTIONAL MATCH (old:Memory {namespace: $namespace, id: $id})
FOREACH (_ IN CASE WHEN old IS NULL THEN [1] ELSE [] END |
  CREATE (m:Memory:$($type) {namespace: $namespace, id: $id})
  SET m += $properties, m.namespace_term = $namespace_term
)
WITH old
MATCH (m:Memory {namespace: $namespace, id: $id})
RETURN m {.*} AS node, [label IN labels(m) WHERE label <> 'Memory'][0] AS type, old IS NULL AS created

// name: get
MATCH (m:Memory {namespace: $namespace, id: $id})
RETURN m {.*} AS node, [label IN labels(m) WHERE label <> 'Memory'][0] AS type

// name: missing_ids
// Which of $ids do not exist in the namespace.
UNWIND $ids AS id
OPTIONAL MATCH (m:Memory {namespace: $namespace, id: id})
WITH id, m
WHERE m IS NULL
RETURN collect(id) AS missing

// name: update
// `importance` is raised only (the caller computes the higher level); tags are replaced.
MATCH (m:Memory {namespace: $namespace, id: $id})
SET m += $properties
RETURN m {.*} AS node, [label IN labels(m) WHERE label <> 'Memory'][0] AS type

// name: forget
// Explicit forgetting: the node and every relationship attached to it.
MATCH (m:Memory {namespace: $namespace, id: $id})
DETACH DELETE m
RETURN count(*) AS deleted
