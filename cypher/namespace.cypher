// Namespaces: a (:Namespace {name}) node holds the settings; memories carry `namespace`.

// name: upsert
// Create the namespace or update the settings given (null keeps the stored value, or the default).
MERGE (n:Namespace {name: $namespace})
ON CREATE SET n.created_at = $now, n._created = true
SET n.capacity = coalesce($capacity, n.capacity, $default_capacity),
    n.low_water_ratio = coalesce($low_water_ratio, n.low_water_ratio, $default_low_water_ratio)
WITH n, coalesce(n._created, false) AS created
REMOVE n._created
RETURN n {.*} AS namespace, created

// name: get
MATCH (n:Namespace {name: $namespace})
RETURN n {.*} AS namespace

// name: counts_by_type
// Memories per type, and per temperature in the same scan (the namespace overview): hot when last
// accessed at or after $hot_since, warm at or after $warm_since, cold the rest (or never accessed).
// The bands are app/domain/tags.py's `temperature`, passed as parameters so they have one definition.
MATCH (m:Memory {namespace: $namespace})
UNWIND [label IN labels(m) WHERE label <> 'Memory'] AS type
RETURN type, count(*) AS count,
       sum(CASE WHEN m.last_accessed >= $hot_since THEN 1 ELSE 0 END) AS hot,
       sum(CASE WHEN m.last_accessed >= $warm_since AND m.last_accessed < $hot_since THEN 1 ELSE 0 END) AS warm
ORDER BY type

// name: count_memories
MATCH (m:Memory {namespace: $namespace})
RETURN count(m) AS count

// name: delete_relationships
// Batched, and before the nodes: DETACH DELETE of a dense node (a speaker with 100k+ turns at 1M
// nodes) took all its relationships into one batch and exceeded the transaction memory limit.
// Each relationship is reached once, from its start node.
MATCH (m:Memory {namespace: $namespace})-[r]->()
CALL (r) { DELETE r } IN TRANSACTIONS OF 10000 ROWS
RETURN count(*) AS deleted

// name: delete_memories
// Batched, so erasing a large namespace never builds one huge transaction.
MATCH (m:Memory {namespace: $namespace})
CALL (m) { DETACH DELETE m } IN TRANSACTIONS OF 5000 ROWS
RETURN count(*) AS deleted

// name: delete
MATCH (n:Namespace {name: $namespace})
DELETE n
RETURN count(n) AS deleted

// name: list_names
// For the background jobs, which visit every namespace, and for `GET /v1/namespaces` (every one, or
// the key's own); reads only the namespace nodes.
MATCH (n:Namespace)
WHERE $namespace IS NULL OR n.name = $namespace
RETURN n.name AS name, n.capacity AS capacity, n.low_water_ratio AS low_water_ratio, n.created_at AS created_at
ORDER BY name
