// name: relationship_types
// description: The namespace's relationships per type: how many, how many are protected
// description: (structural), and the mean and lowest weight of the learned ones.
MATCH (m:Memory {namespace: $namespace})-[r]->()
USING INDEX m:Memory(namespace)
RETURN type(r) AS type, count(r) AS relationships,
       sum(CASE WHEN r.protected THEN 1 ELSE 0 END) AS protected,
       avg(r.weight) AS mean_weight, min(r.weight) AS min_weight
ORDER BY relationships DESC, type
