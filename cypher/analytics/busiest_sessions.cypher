// name: busiest_sessions
// description: The conversation sessions with the most turns: each Episode with its Dialogue turns
// description: (HIERARCHY), speakers, first and last turn.
// param: limit int 20 How many sessions to return
MATCH (ep:Memory {namespace: $namespace})-[:HIERARCHY]->(d:Memory {namespace: $namespace})
USING INDEX ep:Memory(namespace)
WHERE ep:Episode AND d:Dialogue
WITH ep, count(d) AS turns, collect(DISTINCT d.speaker) AS speakers
RETURN ep.session_id AS session_id, ep.id AS episode_id, ep.summary AS summary, turns, speakers,
       ep.started_at AS started_at, ep.ended_at AS ended_at
ORDER BY turns DESC, started_at DESC, episode_id
LIMIT $limit
