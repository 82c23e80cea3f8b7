// The write path for conversation turns (app/memory/ingest.py). Every statement is idempotent:
// nodes are MERGEd on their deterministic ids, relationships on their endpoints.

// name: turns
// $turns: [{id, turn_id, episode_id, person_id, timestamp, properties, episode_properties,
// person_properties}]. Labels are added only when a node is created.
UNWIND $turns AS t
MERGE (ep:Memory {namespace: $namespace, id: t.episode_id})
  ON CREATE SET ep:Episode, ep += t.episode_properties, ep.namespace_term = $namespace_term
SET ep.started_at = CASE WHEN ep.started_at IS NULL OR t.timestamp < ep.started_at
                         THEN t.timestamp ELSE ep.started_at END,
    ep.ended_at = CASE WHEN ep.ended_at IS NULL OR t.timestamp > ep.ended_at THEN t.timestamp ELSE ep.ended_at END,
    ep.source_turn_ids = CASE WHEN t.turn_id IN ep.source_turn_ids THEN ep.source_turn_ids
                              ELSE ep.source_turn_ids + t.turn_id END
MERGE (p:Memory {namespace: $namespace, id: t.person_id})
  ON CREATE SET p:Person, p += t.person_properties, p.namespace_term = $namespace_term
MERGE (d:Memory {namespace: $namespace, id: t.id})
  ON CREATE SET d:Dialogue, d += t.properties, d.namespace_term = $namespace_term, d._created = true
WITH ep, p, d, coalesce(d._created, false) AS created
REMOVE d._created
MERGE (ep)-[h:HIERARCHY]->(d)
  ON CREATE SET h += $structural
MERGE (d)-[r:REFERENCE]->(p)
  ON CREATE SET r += $learned
RETURN d.id AS id, created

// name: turn_windows
// The turns whose context point (app/memory/semantic.py, `store_context`) the turns of $ids change:
// those turns and their neighbours in their sessions' TEMPORAL chains, each with the turns before
// and after it (null at a session's ends) and its length in characters.
UNWIND $ids AS id
MATCH (d:Memory {namespace: $namespace, id: id})
WHERE d:Dialogue
CALL (d) {
  RETURN d AS turn
  UNION
  MATCH (d)-[:TEMPORAL]-(turn:Dialogue)
  RETURN turn
}
WITH DISTINCT turn
OPTIONAL MATCH (previous:Dialogue)-[:TEMPORAL]->(turn)
OPTIONAL MATCH (turn)-[:TEMPORAL]->(next:Dialogue)
RETURN turn.id AS turn, previous.id AS previous, next.id AS next, size(turn.content) AS chars

// name: chain_sessions
// Each touched session's TEMPORAL chain in turn order (timestamp, then arrival): every turn is linked
// to the next, and its edges to other turns of the session are removed (a late turn made them
// non-consecutive). Linear in the session's length: each turn's edges are checked against its
// successor, not against the whole list; the edges are found from the turn (a few), then checked
// against the session (matched from the session, every turn's check read all of its turns). The
// index hint: on a young database the planner chose the namespace index over the unique key.
UNWIND $episode_ids AS episode_id
MATCH (ep:Memory {namespace: $namespace, id: episode_id})-[:HIERARCHY]->(d:Dialogue)
USING INDEX ep:Memory(namespace, id)
WITH ep, d
ORDER BY d.timestamp, d.seq
WITH ep, collect(d) AS turns
UNWIND range(0, size(turns) - 1) AS i
WITH ep, turns[i] AS a, turns[i + 1] AS next
CALL (ep, a, next) {
  MATCH (a)-[r:TEMPORAL]->(b:Dialogue)
  WHERE (next IS NULL OR b <> next) AND EXISTS { (ep)-[:HIERARCHY]->(b) }
  DELETE r
}
WITH a, next
WHERE next IS NOT NULL
MERGE (a)-[r:TEMPORAL]->(next)
  ON CREATE SET r += $structural
RETURN count(r) AS linked

// name: chain_episodes
// Sessions in time order: a TEMPORAL chain over the namespace's episodes (linear, as chain_sessions).
// The index hint keeps the planner off a scan of every namespace's episodes.
MATCH (ep:Episode {namespace: $namespace})
USING INDEX ep:Episode(namespace)
WHERE ep:Memory
WITH ep
ORDER BY ep.started_at, ep.id
WITH collect(ep) AS episodes
UNWIND range(0, size(episodes) - 1) AS i
WITH episodes[i] AS a, episodes[i + 1] AS next
CALL (a, next) {
  MATCH (a)-[r:TEMPORAL]->(b:Episode)
  WHERE next IS NULL OR b <> next
  DELETE r
}
WITH a, next
WHERE next IS NOT NULL
MERGE (a)-[r:TEMPORAL]->(next)
  ON CREATE SET r += $structural
RETURN count(r) AS linked

// name: session_texts
// The turns of each episode in order, for its extractive summary.
UNWIND $episode_ids AS episode_id
MATCH (ep:Memory {namespace: $namespace, id: episode_id})-[:HIERARCHY]->(d:Dialogue)
WITH ep, d
ORDER BY d.timestamp, d.seq
RETURN ep.id AS id, ep.session_id AS session_id, collect(d.speaker + ': ' + d.content) AS texts

// name: set_episode_summaries
UNWIND $episodes AS e
MATCH (ep:Memory {namespace: $namespace, id: e.id})
SET ep.summary = e.summary, ep.content = e.content, ep.updated_at = $now
RETURN count(ep) AS updated

// name: fact_versions
// The stated versions of each of a batch's keys [{subject_key, slot, value_key}] that a statement made
// at or after $since can meet: the one in force and those ending after $since, oldest first. For a
// single-valued slot the key's value_key is null (any value); for a multi-valued one it is the value.
// A key with none comes back as one row with a null id.
UNWIND $keys AS key
CALL (key) {
  OPTIONAL MATCH (k:Knowledge:Memory {namespace: $namespace, subject_key: key.subject_key, slot: key.slot})
  USING INDEX k:Memory(namespace, subject_key, slot)
  WHERE k.source = 'user_stated' AND (key.value_key IS NULL OR k.value_key = key.value_key)
    AND (k.valid_to IS NULL OR k.valid_to > $since)
  RETURN k
  ORDER BY k.valid_from ASC
}
RETURN key.subject_key AS subject_key, key.slot AS slot, key.value_key AS key_value,
       k.id AS id, k.value_key AS value_key, k.valid_from AS valid_from, k.valid_to AS valid_to,
       k.superseded_by AS superseded_by

// name: upsert_facts
// $facts: [{id, properties, turn_id, dialogue_id, inferred}], stated and inferred facts in statement
// order, each with a REFERENCE edge to its source dialogue; a fact stated again gains the new turn in
// `source_turn_ids`. One subquery per row, so a fact repeated in the batch sees its earlier rows.
UNWIND $facts AS fact
CALL (fact) {
  MERGE (k:Memory {namespace: $namespace, id: fact.id})
    ON CREATE SET k:Knowledge, k += fact.properties, k.namespace_term = $namespace_term, k._created = true
  WITH k, coalesce(k._created, false) AS created
  REMOVE k._created
  SET k.source_turn_ids = CASE WHEN fact.turn_id IN k.source_turn_ids THEN k.source_turn_ids
                               ELSE k.source_turn_ids + fact.turn_id END
  WITH k, created
  MATCH (d:Memory {namespace: $namespace, id: fact.dialogue_id})
  MERGE (k)-[r:REFERENCE]->(d)
    ON CREATE SET r += $learned
  RETURN created
}
RETURN fact.id AS id, fact.inferred AS inferred, created

// name: supersede_facts
// $supersessions: [{old_id, new_id, at}] in order: each old value ends where its new one begins, and
// the inferences drawn from it are withdrawn (kept, marked, given a valid_to), never deleted. One
// subquery per row, so an inference two superseded premises share is withdrawn once, by the first.
// A row may also re-point a version already superseded (a statement arriving late, dated inside its
// interval, splits it); its inferences were withdrawn already and are left as they are.
UNWIND $supersessions AS s
CALL (s) {
  MATCH (old:Memory {namespace: $namespace, id: s.old_id})
  SET old.superseded_by = s.new_id, old.valid_to = s.at, old.updated_at = $now
  WITH old
  OPTIONAL MATCH (old)-[:CAUSAL]->(inferred:Knowledge {namespace: $namespace, source: 'inferred'})
  WHERE inferred.withdrawn IS NULL
  SET inferred.withdrawn = true, inferred.withdrawn_at = s.at, inferred.withdrawn_because = s.old_id,
      inferred.valid_to = CASE WHEN inferred.valid_to IS NULL OR inferred.valid_to > s.at
                               THEN s.at ELSE inferred.valid_to END
  RETURN count(inferred) AS withdrawn
}
RETURN sum(withdrawn) AS withdrawn

// name: upsert_entities
// $entities: [{id, type, properties, fact_id}]: Person/Concept nodes merged by their normalized
// name (the id derives from it), each with a REFERENCE from the fact that names it.
UNWIND $entities AS entity
MERGE (e:Memory {namespace: $namespace, id: entity.id})
  ON CREATE SET e:$(entity.type), e += entity.properties, e.namespace_term = $namespace_term
WITH e, entity
MATCH (k:Memory {namespace: $namespace, id: entity.fact_id})
MERGE (k)-[r:REFERENCE]->(e)
  ON CREATE SET r += $learned
RETURN count(r) AS linked

// name: upsert_events
// $events: [{id, dialogue_id, properties}]: Experience nodes for dated statements.
UNWIND $events AS event
MERGE (x:Memory {namespace: $namespace, id: event.id})
  ON CREATE SET x:Experience, x += event.properties, x.namespace_term = $namespace_term, x._created = true
WITH x, event, coalesce(x._created, false) AS created
REMOVE x._created
WITH x, event, created
MATCH (d:Memory {namespace: $namespace, id: event.dialogue_id})
MERGE (x)-[r:REFERENCE]->(d)
  ON CREATE SET r += $learned
RETURN x.id AS id, created

// name: chain_events
// Each subject's events in time order form a TEMPORAL chain (linear, as chain_sessions). The index
// hint keeps the planner off a scan of every namespace's events.
UNWIND $subject_keys AS subject_key
MATCH (x:Memory {namespace: $namespace, subject_key: subject_key})
USING INDEX x:Memory(namespace, subject_key)
WHERE x:Experience
WITH subject_key, x
ORDER BY x.event_time, x.id
WITH subject_key, collect(x) AS events
UNWIND range(0, size(events) - 1) AS i
WITH events[i] AS a, events[i + 1] AS next
CALL (a, next) {
  MATCH (a)-[r:TEMPORAL]->(b:Experience)
  WHERE next IS NULL OR b <> next
  DELETE r
}
WITH a, next
WHERE next IS NOT NULL
MERGE (a)-[r:TEMPORAL]->(next)
  ON CREATE SET r += $structural
RETURN count(r) AS linked

// name: dialogue_turns
// The turns behind Dialogue nodes, in order, for extractors that run after the tracks (the LLM enricher).
UNWIND $ids AS id
MATCH (d:Memory {namespace: $namespace, id: id})
WHERE d:Dialogue
RETURN d.session_id AS session_id, d.turn_id AS turn_id, d.speaker AS speaker, d.content AS text,
       d.timestamp AS timestamp
ORDER BY d.timestamp, d.seq
