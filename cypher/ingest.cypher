// The write path for conversation turns (app/memory/ingest.py). Every statement is idempotent:
// nodes are MERGEd on their deterministic ids, relationships on their endpoints.

// name: turns
// $turns: [{id, turn_id, episode_id, person_id, timestamp, properties, episode_properties,
// person_properties}]. Labels are added only when a node is created.
UNWIND $turns AS t
MERGE (ep:Memory {namespace: $namespace, id: t.episode_id})
  ON CREATE SET ep:Episode, ep += t.episode_properties
SET ep.started_at = CASE WHEN ep.started_at IS NULL OR t.timestamp < ep.started_at
                         THEN t.timestamp ELSE ep.started_at END,
    ep.ended_at = CASE WHEN ep.ended_at IS NULL OR t.timestamp > ep.ended_at THEN t.timestamp ELSE ep.ended_at END,
    ep.source_turn_ids = CASE WHEN t.turn_id IN ep.source_turn_ids THEN ep.source_turn_ids
                              ELSE ep.source_turn_ids + t.turn_id END
MERGE (p:Memory {namespace: $namespace, id: t.person_id})
  ON CREATE SET p:Person, p += t.person_properties
MERGE (d:Memory {namespace: $namespace, id: t.id})
  ON CREATE SET d:Dialogue, d += t.properties, d._created = true
WITH ep, p, d, coalesce(d._created, false) AS created
REMOVE d._created
MERGE (ep)-[h:HIERARCHY]->(d)
  ON CREATE SET h += $structural
MERGE (d)-[r:REFERENCE]->(p)
  ON CREATE SET r += $learned
RETURN d.id AS id, created

// name: chain_sessions
// Rebuild each touched session's TEMPORAL chain in turn order (timestamp, then arrival), removing
// edges that a late turn made non-consecutive.
UNWIND $episode_ids AS episode_id
MATCH (ep:Memory {namespace: $namespace, id: episode_id})-[:HIERARCHY]->(d:Dialogue)
WITH ep, d
ORDER BY d.timestamp, d.seq
WITH ep, collect(d) AS turns
CALL (turns) {
  UNWIND range(0, size(turns) - 2) AS i
  WITH turns[i] AS a, turns[i + 1] AS b
  MERGE (a)-[r:TEMPORAL]->(b)
    ON CREATE SET r += $structural
}
CALL (ep, turns) {
  MATCH (ep)-[:HIERARCHY]->(a:Dialogue)-[r:TEMPORAL]->(b:Dialogue)<-[:HIERARCHY]-(ep)
  WITH r, a, b, turns
  WHERE NOT any(i IN range(0, size(turns) - 2) WHERE turns[i] = a AND turns[i + 1] = b)
  DELETE r
}
RETURN count(ep) AS sessions

// name: chain_episodes
// Sessions in time order: a TEMPORAL chain over the namespace's episodes.
MATCH (ep:Episode:Memory {namespace: $namespace})
WITH ep
ORDER BY ep.started_at, ep.id
WITH collect(ep) AS episodes
CALL (episodes) {
  UNWIND range(0, size(episodes) - 2) AS i
  WITH episodes[i] AS a, episodes[i + 1] AS b
  MERGE (a)-[r:TEMPORAL]->(b)
    ON CREATE SET r += $structural
}
CALL (episodes) {
  MATCH (a:Episode:Memory {namespace: $namespace})-[r:TEMPORAL]->(b:Episode)
  WITH r, a, b, episodes
  WHERE NOT any(i IN range(0, size(episodes) - 2) WHERE episodes[i] = a AND episodes[i + 1] = b)
  DELETE r
}
RETURN size(episodes) AS episodes

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

// name: current_fact
// The stated fact in force for a subject and slot; for a multi-valued slot, the one with this
// value ($value_key; null for single-valued slots).
MATCH (k:Knowledge:Memory {namespace: $namespace, subject_key: $subject_key, slot: $slot})
WHERE k.source = 'user_stated' AND k.superseded_by IS NULL AND ($value_key IS NULL OR k.value_key = $value_key)
RETURN k.id AS id, k.value_key AS value_key, k.valid_from AS valid_from
ORDER BY k.valid_from DESC
LIMIT 1

// name: upsert_fact
// A fact (stated or inferred) with REFERENCE edges to its source dialogue; a fact stated again
// gains the new turn in `source_turn_ids`.
MERGE (k:Memory {namespace: $namespace, id: $id})
  ON CREATE SET k:Knowledge, k += $properties, k._created = true
WITH k, coalesce(k._created, false) AS created
REMOVE k._created
SET k.source_turn_ids = CASE WHEN $turn_id IN k.source_turn_ids THEN k.source_turn_ids
                             ELSE k.source_turn_ids + $turn_id END
WITH k, created
MATCH (d:Memory {namespace: $namespace, id: $dialogue_id})
MERGE (k)-[r:REFERENCE]->(d)
  ON CREATE SET r += $learned
RETURN k.id AS id, created

// name: supersede_fact
// The old value ends where the new one begins; inferences drawn from it are withdrawn (kept,
// marked, and given a valid_to), never deleted.
MATCH (old:Memory {namespace: $namespace, id: $old_id})
SET old.superseded_by = $new_id, old.valid_to = $at, old.updated_at = $now
WITH old
OPTIONAL MATCH (old)-[:CAUSAL]->(inferred:Knowledge {namespace: $namespace, source: 'inferred'})
WHERE inferred.withdrawn IS NULL
SET inferred.withdrawn = true, inferred.withdrawn_at = $at, inferred.withdrawn_because = $old_id,
    inferred.valid_to = CASE WHEN inferred.valid_to IS NULL OR inferred.valid_to > $at
                             THEN $at ELSE inferred.valid_to END
RETURN count(inferred) AS withdrawn

// name: upsert_entities
// $entities: [{id, type, properties, fact_id}]: Person/Concept nodes merged by their normalized
// name (the id derives from it), each with a REFERENCE from the fact that names it.
UNWIND $entities AS entity
MERGE (e:Memory {namespace: $namespace, id: entity.id})
  ON CREATE SET e:$(entity.type), e += entity.properties
WITH e, entity
MATCH (k:Memory {namespace: $namespace, id: entity.fact_id})
MERGE (k)-[r:REFERENCE]->(e)
  ON CREATE SET r += $learned
RETURN count(r) AS linked

// name: upsert_events
// $events: [{id, dialogue_id, properties}]: Experience nodes for dated statements.
UNWIND $events AS event
MERGE (x:Memory {namespace: $namespace, id: event.id})
  ON CREATE SET x:Experience, x += event.properties, x._created = true
WITH x, event, coalesce(x._created, false) AS created
REMOVE x._created
WITH x, event, created
MATCH (d:Memory {namespace: $namespace, id: event.dialogue_id})
MERGE (x)-[r:REFERENCE]->(d)
  ON CREATE SET r += $learned
RETURN x.id AS id, created

// name: chain_events
// Each subject's events in time order form a TEMPORAL chain.
UNWIND $subject_keys AS subject_key
MATCH (x:Experience:Memory {namespace: $namespace, subject_key: subject_key})
WITH subject_key, x
ORDER BY x.event_time, x.id
WITH subject_key, collect(x) AS events
CALL (events) {
  UNWIND range(0, size(events) - 2) AS i
  WITH events[i] AS a, events[i + 1] AS b
  MERGE (a)-[r:TEMPORAL]->(b)
    ON CREATE SET r += $structural
}
CALL (subject_key, events) {
  MATCH (a:Experience:Memory {namespace: $namespace, subject_key: subject_key})-[r:TEMPORAL]->(b:Experience)
  WITH r, a, b, events
  WHERE NOT any(i IN range(0, size(events) - 2) WHERE events[i] = a AND events[i + 1] = b)
  DELETE r
}
RETURN count(*) AS subjects

// name: dialogue_turns
// The turns behind Dialogue nodes, in order, for extractors that run after the tracks (the LLM enricher).
UNWIND $ids AS id
MATCH (d:Memory {namespace: $namespace, id: id})
WHERE d:Dialogue
RETURN d.session_id AS session_id, d.turn_id AS turn_id, d.speaker AS speaker, d.content AS text,
       d.timestamp AS timestamp
ORDER BY d.timestamp, d.seq
