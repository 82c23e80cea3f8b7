// name: decay_by_importance
// description: Decay status per importance level: memories, mean and lowest activation, and how
// description: many are soft-forgotten (activation below the threshold: recall's graph paths skip them,
// description: their vectors stay; app/domain/decay.py SOFT_FORGET_THRESHOLD).
// param: soft_forget_threshold float 0.05 Activation below which a memory is soft-forgotten
MATCH (m:Memory {namespace: $namespace})
USING INDEX m:Memory(namespace)
WITH m.importance AS importance, count(m) AS memories, avg(m.activation) AS mean_activation,
     min(m.activation) AS min_activation,
     sum(CASE WHEN m.activation < $soft_forget_threshold THEN 1 ELSE 0 END) AS soft_forgotten
RETURN importance, memories, mean_activation, min_activation, soft_forgotten
ORDER BY CASE importance WHEN 'TRIVIAL' THEN 0 WHEN 'NORMAL' THEN 1 WHEN 'IMPORTANT' THEN 2 WHEN 'FACT' THEN 3
                        WHEN 'IDENTITY' THEN 4 WHEN 'MUST_REMEMBER' THEN 5 ELSE 6 END
