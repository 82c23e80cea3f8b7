// Data migrations, run once per database after the schema (app/memory/migrations.py). Each is
// idempotent; a (:Migration {name}) node records that one has completed, so later start-ups skip
// it without reading the memories. They span all namespaces, like the schema.

// name: completed
MATCH (m:Migration {name: $migration})
RETURN m.name AS name

// name: mark_completed
MERGE (m:Migration {name: $migration})
ON CREATE SET m.completed_at = $now

// name: namespaces_without_term
// Namespaces holding nodes written before nodes carried `namespace_term` (app/domain/inputs.py).
MATCH (m:Memory)
WHERE m.namespace_term IS NULL
RETURN DISTINCT m.namespace AS namespace

// name: set_namespace_term
MATCH (m:Memory {namespace: $namespace})
WHERE m.namespace_term IS NULL
CALL (m) {
  SET m.namespace_term = $namespace_term
} IN TRANSACTIONS OF 10000 ROWS

// name: entities_without_name_key
// Person and Concept nodes saved before every entity carried its normalized name (`name_key`,
// app/memory/entities.py): the resolver finds a node only by it. A page at a time.
MATCH (m:Memory)
WHERE (m:Person OR m:Concept) AND m.name_key IS NULL
RETURN m.namespace AS namespace, m.id AS id, m.label AS label
LIMIT $limit

// name: set_name_keys
// $rows: [{namespace, id, name_key}] ("" for a label with nothing to compare: never looked up).
UNWIND $rows AS row
MATCH (m:Memory {namespace: row.namespace, id: row.id})
SET m.name_key = row.name_key
RETURN count(m) AS updated
