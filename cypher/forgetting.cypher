// Decay, soft forgetting and pruning. Decay is recomputed from stored anchors
// (activation_base at last_accessed; weight_base at last_reinforced), never from the previous
// value, so running a job twice or late gives the same result (app/domain/decay.py is the same
// formula in Python). Hours before the anchor count as zero.

// name: decay_nodes
MATCH (m:Memory {namespace: $namespace})
WHERE m.importance IN keys($half_lives)
CALL (m) {
  WITH m, CASE WHEN m.last_accessed >= $now THEN 0.0
              ELSE duration.inSeconds(m.last_accessed, $now).seconds / 3600.0 END AS hours
  SET m.activation = m.activation_base * exp(-hours * $ln2 / $half_lives[m.importance])
} IN 2 CONCURRENT TRANSACTIONS OF 10000 ROWS
RETURN count(*) AS decayed

// name: decay_edges
// One batch at a time: concurrent batches deadlock on a node holding thousands of relationships
// (a speaker's Person node), measured at 100k and 1M nodes by scripts/bench_recall.py.
MATCH (:Memory {namespace: $namespace})-[r:REFERENCE|SEMANTIC|CAUSAL|ASSOCIATION]->()
CALL (r) {
  WITH r, CASE WHEN r.last_reinforced >= $now THEN 0.0
              ELSE duration.inSeconds(r.last_reinforced, $now).seconds / 3600.0 END AS hours
  SET r.weight = r.weight_base * exp(-hours * $ln2 / $edge_half_life)
} IN TRANSACTIONS OF 10000 ROWS
RETURN count(*) AS decayed

// name: count_soft_forgotten
MATCH (m:Memory {namespace: $namespace})
WHERE m.activation < $threshold
RETURN count(m) AS count

// name: prune_candidates
// Lowest activation x importance weight first; never MUST_REMEMBER, never a node on a
// structural (protected) relationship.
MATCH (m:Memory {namespace: $namespace})
WHERE m.importance <> 'MUST_REMEMBER'
  AND NOT EXISTS { (m)-[:HIERARCHY|DEPENDENCY|TEMPORAL]-() }
WITH m, m.activation * $prune_weights[m.importance] AS score
ORDER BY score ASC, m.last_accessed ASC, m.id ASC
LIMIT $limit
RETURN m.id AS id

// name: delete_nodes
// Two transactions at a time (2-3x faster on 2 cores). A batch that fails (e.g. a lock conflict
// between neighbours) is reported, not fatal: the caller retries the ids still present.
UNWIND $ids AS id
MATCH (m:Memory {namespace: $namespace, id: id})
CALL (m) { DETACH DELETE m } IN 2 CONCURRENT TRANSACTIONS OF 2000 ROWS
  ON ERROR CONTINUE REPORT STATUS AS status
RETURN count(*) AS attempted, sum(CASE WHEN status.committed THEN 1 ELSE 0 END) AS deleted

// name: delete_weak_edges
// One batch at a time (deleting relationships locks their endpoints: concurrent batches would
// deadlock on hub nodes, as decay_edges did). A batch that fails is left for the next run.
MATCH (:Memory {namespace: $namespace})-[r:REFERENCE|SEMANTIC|CAUSAL|ASSOCIATION]->()
WHERE r.weight < $floor
CALL (r) { DELETE r } IN TRANSACTIONS OF 10000 ROWS
  ON ERROR CONTINUE REPORT STATUS AS status
RETURN sum(CASE WHEN status.committed THEN 1 ELSE 0 END) AS deleted
