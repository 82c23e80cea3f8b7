// Forgetting on request (app/memory/erasure.py): what a filter names, everything derived from it
// alone, and the audit record of each forgetting. Run in one write transaction per chunk of sources;
// every statement is idempotent (a repeat finds nothing left to delete or repair).
//
// Sources are what a writer put in: turns (Dialogue) and saved memories. Derived nodes are what the
// write tracks made from turns: facts, events and inferences (Knowledge/Experience with a REFERENCE
// to a Dialogue), episodes, and entities (Person/Concept) that a turn introduced.

// fragment: derived
(m:Episode OR ((m:Knowledge OR m:Experience) AND EXISTS { (m)-[:REFERENCE]->(:Dialogue) })
 OR ((m:Person OR m:Concept) AND size(coalesce(m.source_turn_ids, [])) > 0))

// name: sources
// The sources the filter names (every given field must hold; a null field holds for all). `since`
// and `until` bound the turn's timestamp (a saved memory's created_at), `until` exclusive.
MATCH (m:Memory {namespace: $namespace})
WHERE ($agent_id IS NULL OR m.agent_id = $agent_id)
  AND ($session_id IS NULL OR m.session_id = $session_id)
  AND ($turn_ids IS NULL OR (m:Dialogue AND m.turn_id IN $turn_ids))
  AND ($tags IS NULL OR all(tag IN $tags WHERE tag IN coalesce(m.tags, [])))
  AND ($since IS NULL OR coalesce(m.timestamp, m.created_at) >= $since)
  AND ($until IS NULL OR coalesce(m.timestamp, m.created_at) < $until)
  AND (m:Dialogue OR NOT
// include: derived
  )
RETURN m.id AS id, m:Dialogue AS turn, m.session_id AS session_id, m.turn_id AS turn_id
ORDER BY id

// name: turns
// The Dialogue nodes of $ids, as `sources` answers them, with their text and speaker (turns
// corrected in place).
UNWIND $ids AS id
MATCH (m:Dialogue:Memory {namespace: $namespace, id: id})
RETURN m.id AS id, true AS turn, m.session_id AS session_id, m.turn_id AS turn_id, m.content AS text,
       m.speaker AS speaker

// name: derived_only_from
// Facts, events and inferences every source Dialogue of which is among $ids (a fact another turn
// also states keeps it, and stays); inferences whose every premise goes; episodes all of whose turns
// go. Entities are decided by `orphaned_entities`.
CALL () {
  UNWIND $ids AS id
  MATCH (:Dialogue:Memory {namespace: $namespace, id: id})<-[:REFERENCE]-(k:Memory)
  WHERE (k:Knowledge OR k:Experience)
    AND NOT EXISTS { MATCH (k)-[:REFERENCE]->(d:Dialogue) WHERE NOT d.id IN $ids }
  RETURN DISTINCT k.id AS id
  UNION
  UNWIND $ids AS id
  MATCH (ep:Episode:Memory {namespace: $namespace})-[:HIERARCHY]->(:Dialogue:Memory {namespace: $namespace, id: id})
  WHERE NOT EXISTS { MATCH (ep)-[:HIERARCHY]->(d:Dialogue) WHERE NOT d.id IN $ids }
  RETURN DISTINCT ep.id AS id
}
RETURN collect(id) AS ids

// name: orphan_inferences
// Inferences (not yet going) whose every premise is among $gone.
UNWIND $gone AS id
MATCH (:Memory {namespace: $namespace, id: id})-[:CAUSAL]->(i:Knowledge:Memory)
WHERE i.source = 'inferred' AND NOT i.id IN $gone
  AND NOT EXISTS { MATCH (p)-[:CAUSAL]->(i) WHERE NOT p.id IN $gone }
RETURN collect(DISTINCT i.id) AS ids

// name: count_going
// What deleting $gone removes: nodes per type and the relationships on them (each once).
CALL () {
  UNWIND $gone AS id
  MATCH (m:Memory {namespace: $namespace, id: id})
  RETURN [label IN labels(m) WHERE label <> 'Memory'][0] AS type, count(*) AS n
}
WITH collect({type: type, n: n}) AS nodes
CALL () {
  UNWIND $gone AS id
  MATCH (:Memory {namespace: $namespace, id: id})-[r]-()
  RETURN count(DISTINCT r) AS relationships
}
RETURN nodes, relationships

// name: repair_timelines
// A fact that goes hands its place in its key's timeline back: the version it superseded is in force
// again (or ends where it ended), and inferences withdrawn because that version was superseded come
// back when it is in force again. One subquery per row, so a chain of going versions repairs in any order.
UNWIND $gone AS id
CALL (id) {
  MATCH (f:Knowledge:Memory {namespace: $namespace, id: id})
  MATCH (p:Knowledge:Memory {namespace: $namespace, subject_key: f.subject_key, slot: f.slot})
  WHERE p.superseded_by = f.id AND NOT p.id IN $gone
  SET p.superseded_by = f.superseded_by, p.valid_to = f.valid_to, p.updated_at = $now
  WITH p
  OPTIONAL MATCH (p)-[:CAUSAL]->(i:Knowledge:Memory {namespace: $namespace})
  WHERE p.superseded_by IS NULL AND i.withdrawn_because = p.id AND NOT i.id IN $gone
  SET i.withdrawn = null, i.withdrawn_at = null, i.withdrawn_because = null, i.valid_to = null
  RETURN count(p) AS repaired
}
RETURN sum(repaired) AS repaired

// name: drop_provenance
// Surviving nodes next to a going turn (facts another turn states, speakers, episodes that keep other
// turns) lose the going turns' ids from `source_turn_ids`, unless a surviving turn next to them has
// the same turn id. Returns the episodes and event subjects whose chains and summaries change.
UNWIND $turns AS id
MATCH (:Dialogue:Memory {namespace: $namespace, id: id})-[:REFERENCE|HIERARCHY]-(k:Memory)
WHERE NOT k.id IN $gone
WITH DISTINCT k
OPTIONAL MATCH (k)-[:REFERENCE|HIERARCHY]-(other:Dialogue)
WHERE NOT other.id IN $gone
WITH k, collect(other.turn_id) AS kept
SET k.source_turn_ids = [t IN coalesce(k.source_turn_ids, []) WHERE t IN kept OR NOT t IN $turn_ids]
RETURN count(k) AS updated, [x IN collect(CASE WHEN k:Episode THEN k.id END) WHERE x IS NOT NULL] AS episodes

// name: event_subjects
// The subjects whose event chains lose a member.
UNWIND $gone AS id
MATCH (x:Experience:Memory {namespace: $namespace, id: id})
RETURN collect(DISTINCT x.subject_key) AS subject_keys

// name: delete_nodes
// The going nodes and every relationship on them.
UNWIND $gone AS id
MATCH (m:Memory {namespace: $namespace, id: id})
DETACH DELETE m
RETURN count(*) AS deleted

// name: orphaned_entities
// Persons and concepts next to a going node that a turn introduced (a saved Person, without source
// turns, stays) and that nothing surviving would still state or name: no relationship but learned
// similarity (SEMANTIC, ASSOCIATION) to a node outside $gone. Read before the deletion, so a dry run
// counts them too.
UNWIND $candidates AS id
MATCH (e:Memory {namespace: $namespace, id: id})
WHERE (e:Person OR e:Concept) AND size(coalesce(e.source_turn_ids, [])) > 0
  AND NOT EXISTS { MATCH (e)-[r]-(x:Memory) WHERE NOT x.id IN $gone AND NOT type(r) IN ['SEMANTIC', 'ASSOCIATION'] }
RETURN collect(e.id) AS ids

// name: neighbours
// The nodes related to $gone: candidates for `orphaned_entities`, and the turns whose context points
// (app/memory/semantic.py) held a going turn's vector.
UNWIND $gone AS id
MATCH (:Memory {namespace: $namespace, id: id})--(n:Memory)
WHERE NOT n.id IN $gone
RETURN collect(DISTINCT n.id) AS ids

// name: record_audit
// The audit record of one forgetting (not a :Memory, no `namespace` property: no recall, export or
// analyst's query reaches it).
CREATE (a:ForgetAudit {id: $id, audit_namespace: $namespace, at: $at, role: $role, agent_id: $agent_id,
                       key_id: $key_id, filter: $filter, counts: $counts})
RETURN a.id AS id

// name: audit
// A namespace's forgettings, newest first.
MATCH (a:ForgetAudit {audit_namespace: $namespace})
RETURN a {.*} AS record
ORDER BY a.at DESC, a.id DESC
LIMIT $limit

// name: delete_audit
// With the namespace (DELETE /v1/namespaces/{ns}).
MATCH (a:ForgetAudit {audit_namespace: $namespace})
DELETE a
RETURN count(a) AS deleted

// name: replace_turns
// Corrections (`"replace": true`): each turn takes its new text, speaker and what derives from them
// (label, summary, importance, metadata, timestamp); the version it replaces is appended to `history`
// (JSON text: text, speaker, replaced_at), which no full-text or vector search reads. A turn whose
// text and speaker are already these is left alone (a repeated correction adds no history). Its
// REFERENCE to a former speaker goes, and those of the facts and events its old text stated that
// stay (another turn states them too); the write tracks link what the new text states.
UNWIND $turns AS t
MATCH (d:Dialogue:Memory {namespace: $namespace, id: t.id})
WHERE d.content <> t.properties.content OR d.speaker <> t.properties.speaker
SET d.history = coalesce(d.history, []) + t.history, d += t.properties, d.updated_at = $now
WITH d, t
CALL (d, t) {
  OPTIONAL MATCH (d)-[r:REFERENCE]->(p:Person)
  WHERE p.id <> t.person_id
  DELETE r
}
CALL (d) {
  OPTIONAL MATCH (k:Memory)-[r:REFERENCE]->(d)
  WHERE k:Knowledge OR k:Experience
  DELETE r
}
RETURN count(DISTINCT d) AS replaced
