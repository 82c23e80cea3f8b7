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
