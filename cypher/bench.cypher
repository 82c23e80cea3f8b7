// Bulk loaders for the benchmark scripts under scripts/ (synthetic data, not product paths).

// name: load_nodes
// Nodes $start..$end-1 of a synthetic namespace: mixed types and importance levels, last
// accessed up to $spread_hours before $now.
UNWIND range($start, $end - 1) AS i
CALL (i) {
  WITH i, $types[i % size($types)] AS type, $levels[i % size($levels)] AS importance,
       $now - duration({hours: (i * 7919) % $spread_hours}) AS at
  CREATE (m:Memory:$(type) {namespace: $namespace, namespace_term: $namespace_term,
                             id: toLower(type) + ':bench-' + toString(i)})
  SET m.label = 'bench ' + toString(i), m.summary = 'synthetic memory ' + toString(i),
      m.content = 'synthetic memory number ' + toString(i), m.importance = importance,
      m.activation_base = 1.0, m.activation = 1.0, m.access_count = 0, m.source = 'imported',
      m.confidence = 1.0, m.tags = [], m.source_turn_ids = [],
      m.created_at = at, m.last_accessed = at, m.updated_at = at
} IN TRANSACTIONS OF 10000 ROWS
RETURN count(*) AS created

// name: load_edges
// One edge from node i to node i-1 for i in $start..$end-1: every 10th structural (HIERARCHY),
// the rest learned ASSOCIATION edges with weights spread over (0, 1].
UNWIND range(CASE WHEN $start < 1 THEN 1 ELSE $start END, $end - 1) AS i
CALL (i) {
  MATCH (a:Memory {namespace: $namespace, id: toLower($types[i % size($types)]) + ':bench-' + toString(i)})
  MATCH (b:Memory {namespace: $namespace,
                   id: toLower($types[(i - 1) % size($types)]) + ':bench-' + toString(i - 1)})
  CREATE (a)-[r:$(CASE WHEN i % 10 = 0 THEN 'HIERARCHY' ELSE 'ASSOCIATION' END)]->(b)
  SET r.protected = i % 10 = 0, r.created_at = a.created_at
  FOREACH (_ IN CASE WHEN i % 10 = 0 THEN [] ELSE [1] END |
    SET r.weight_base = 0.02 + 0.98 * ((i * 31) % 1000) / 1000.0, r.weight = r.weight_base,
        r.last_reinforced = a.created_at, r.co_activations = 3)
} IN TRANSACTIONS OF 10000 ROWS
RETURN count(*) AS created

// name: load_memories
// $rows: [{type, id, properties}] built with app/memory/records.py (scripts/bench_recall.py): nodes
// exactly as the write path stores them. The type is a NodeType value.
UNWIND $rows AS row
CREATE (m:Memory:$(row.type) {namespace: $namespace, id: row.id})
SET m += row.properties, m.namespace_term = $namespace_term
RETURN count(m) AS created

// name: load_relationships
// $rows: [{type, source_id, target_id, properties}] as app/memory/records.link_row builds them;
// the type is a RelType value. Both ends exist already.
UNWIND $rows AS row
MATCH (a:Memory {namespace: $namespace, id: row.source_id})
MATCH (b:Memory {namespace: $namespace, id: row.target_id})
CREATE (a)-[r:$(row.type)]->(b)
SET r = row.properties
RETURN count(r) AS created

// name: update_memories
// $rows: [{id, properties}]: properties that changed after a node was loaded (a fact said again or
// superseded).
UNWIND $rows AS row
MATCH (m:Memory {namespace: $namespace, id: row.id})
SET m += row.properties
RETURN count(m) AS updated

// name: reset_activation
// Undo the decay job: every node back to its anchor activation, every learned edge to its anchor
// weight (a benchmark measuring a namespace where nothing has decayed yet).
MATCH (m:Memory {namespace: $namespace})
CALL (m) {
  SET m.activation = m.activation_base
  WITH m
  MATCH (m)-[r:REFERENCE|SEMANTIC|CAUSAL|ASSOCIATION]->()
  SET r.weight = r.weight_base
} IN TRANSACTIONS OF 5000 ROWS
RETURN count(*) AS reset
