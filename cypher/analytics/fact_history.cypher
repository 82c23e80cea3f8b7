// name: fact_history
// description: A fact's history: every version of a subject's slot (stated and inferred) in time
// description: order, with valid_from/valid_to, what superseded it and whether an inference was withdrawn.
// description: Leave subject or slot null to list all.
// param: subject str null The subject as stated (case-insensitive), e.g. "Alice"; null = every subject
// param: slot str null The slot, e.g. "lives_in"; null = every slot
// param: limit int 200 How many versions to return
MATCH (k:Memory {namespace: $namespace})
USING INDEX k:Memory(namespace)
// The label as a list test: `k:Knowledge` let the planner join a label scan with the namespace seek on a
// small database, which the anchoring rule refuses (a fresh install's first fact history answered 422).
WHERE 'Knowledge' IN labels(k) AND k.slot IS NOT NULL
  AND ($subject IS NULL OR toLower(k.subject) = toLower($subject))
  AND ($slot IS NULL OR k.slot = $slot)
RETURN k.subject AS subject, k.slot AS slot, k.value AS value, k.valid_from AS valid_from,
       k.valid_to AS valid_to, k.superseded_by AS superseded_by, k.source AS source,
       k.confidence AS confidence, coalesce(k.withdrawn, false) AS withdrawn, k.id AS id
ORDER BY subject, slot, valid_from, id
LIMIT $limit
