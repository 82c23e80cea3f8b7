// Hebbian learning from co-activation totals kept in Redis (app/domain/hebbian.py).
// $pairs: [{a, b, total}], a < b. Idempotent: a relationship records the total it has absorbed
// (`co_activations`), so a pair's total is never applied twice.

// name: apply_co_activations
UNWIND $pairs AS pair
MATCH (a:Memory {namespace: $namespace, id: pair.a})
MATCH (b:Memory {namespace: $namespace, id: pair.b})
CALL (a, b, pair) {
  // Reinforce every learned relationship between the pair, from its current decayed weight.
  MATCH (a)-[r:REFERENCE|SEMANTIC|CAUSAL|ASSOCIATION]-(b)
  WHERE pair.total > coalesce(r.co_activations, 0)
  WITH r, pair.total - coalesce(r.co_activations, 0) AS steps,
       CASE WHEN r.last_reinforced >= $now THEN 0.0
            ELSE duration.inSeconds(r.last_reinforced, $now).seconds / 3600.0 END AS hours
  WITH r, steps, r.weight_base * exp(-hours * $ln2 / $edge_half_life) AS current
  WITH r, 1.0 - (1.0 - current) * ($keep ^ steps) AS weight
  SET r.weight_base = weight,
      r.weight = weight,
      r.last_reinforced = $now,
      r.co_activations = pair.total
  RETURN count(r) AS reinforced
}
CALL (a, b, pair) {
  // The pair's ASSOCIATION appears once it has $edge_at co-activations.
  WITH a, b, pair
  WHERE pair.total >= $edge_at AND NOT EXISTS { (a)-[:ASSOCIATION]-(b) }
  WITH a, b, pair, 1.0 - $keep ^ pair.total AS weight
  CREATE (a)-[r:ASSOCIATION {protected: false, weight: weight, weight_base: weight, created_at: $now,
                             last_reinforced: $now, co_activations: pair.total}]->(b)
  RETURN count(r) AS created
}
RETURN sum(reinforced) AS reinforced, sum(created) AS created

// name: apply_accesses
// $accesses: [{id, count}] recorded by recalls since the last flush, under one $batch id; a node
// that already absorbed this batch is skipped, so a repeated flush counts nothing twice. Each access
// moves activation (decayed to $now) a share (1 - $keep) of the way to 1, re-anchors decay at $now,
// and crossing $promote_at accesses applies the one-step promotion in $promotions.
UNWIND $accesses AS access
MATCH (m:Memory {namespace: $namespace, id: access.id})
WHERE coalesce(m.access_batch, '') <> $batch
WITH m, access,
     CASE WHEN m.importance IN keys($half_lives) AND m.last_accessed < $now
          THEN m.activation_base
               * exp(-(duration.inSeconds(m.last_accessed, $now).seconds / 3600.0) * $ln2 / $half_lives[m.importance])
          ELSE m.activation_base END AS current
WITH m, access, 1.0 - (1.0 - current) * ($keep ^ access.count) AS activation,
     m.access_count AS before, m.access_count + access.count AS after
SET m.activation_base = activation,
    m.activation = activation,
    m.last_accessed = $now,
    m.access_count = after,
    m.access_batch = $batch,
    m.importance = CASE WHEN before < $promote_at AND after >= $promote_at
                        THEN coalesce($promotions[m.importance], m.importance) ELSE m.importance END
RETURN count(m) AS updated
