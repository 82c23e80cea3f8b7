// The read path (app/recall/). The recall request itself only reads; accesses and co-activations
// go to Redis and reach the graph through the flush job.

// name: hot
// The hot path in one query: seeds from the full-text index ($lucene, already restricted to the
// namespace; blank for none; padded with spaces to a fixed length, see app/recall/service.py), from entity names and fact slots named by the query, and from the Redis hot window
// ($hot_seeds: [{id, score}]); then spreading activation from the seeds.
//
// Spreading activation is a variable-length traversal in both directions, run as up to three
// one-hop stages (each guarded by $max_depth): a node's activation is the best product
// seed score x PROD(edge weight x $hop_decay) over the paths that reach it (structural edges weigh
// 1). Each stage keeps its best $cap nodes, so the cost is bounded on dense graphs, and nodes with
// more than $max_fanout relationships (a speaker, a common concept) are reached but not expanded
// through: they would pass the same activation to everything. Soft-forgotten nodes
// (activation < $alive) are neither seeds nor reached. A stage checks activation after sorting, on
// its best nodes until $cap pass: a node's properties are a chain of records and reading one is
// the costliest step of the traversal (before, on all ~1,900 rows of the three stages: ~19 % of the
// query's time at 100k nodes). A reached node's label is not checked: the product links only
// memories, and the activation check drops anything else linked by hand (the label check read the
// node record of each of the ~1,600 reached rows: ~0.4 ms at 100k nodes). Returns one record:
// `rows`, a map per node with its seed parts, its spread activation (from the stages, not its own
// seed score), how many seeds it neighbours and its card fields (so fusion needs no second read for
// them); `expanded` and `seeds`.
// `replan=skip`: the plan is index seeks whatever the data (every MATCH names its index: the plan
// made at start-up on an empty database must be the one for a full one), and re-planning this query
// as a namespace grows costs about a second each time.
CYPHER replan=skip
CALL () {
  WITH trim($lucene) AS q
  WHERE q <> ''
  CALL db.index.fulltext.queryNodes('memory_text_v3', q, {limit: $text_limit}) YIELD node, score
  WITH node, score
  WHERE node.namespace = $namespace AND node.activation >= $alive
  RETURN collect({node: node, score: score}) AS text_hits
}
CALL () {
  MATCH (e:Memory {namespace: $namespace})
  USING INDEX e:Memory(namespace, name_key)
  WHERE e.name_key IN $entity_keys AND e.activation >= $alive
  RETURN collect({node: e, score: 1.0}) AS entity_hits
}
CALL () {
  // Facts about an entity the query names, in a slot it names ("What car does Alice drive?");
  // $subject_keys: not the owner of a relation it names ("What does Alice's sister like?").
  // Without the padding ($no_match): the seek combines every subject with every slot, and Neo4j
  // builds all 64 x 32 pairs of the padded lists first (2 MB of garbage per recall, measured).
  WITH [key IN $subject_keys WHERE key <> $no_match] AS subjects, [key IN $slot_keys WHERE key <> $no_match] AS slots
  MATCH (k:Memory)
  USING INDEX k:Memory(namespace, subject_key, slot)
  WHERE k.namespace = $namespace AND k.subject_key IN subjects AND k.slot IN slots AND k.activation >= $alive
  WITH k ORDER BY k.valid_from DESC LIMIT $text_limit
  RETURN collect({node: k, score: 1.0}) AS subject_hits
}
CALL () {
  // The newest facts of each slot the query names, whoever they are about: read newest first from
  // the index (the range on valid_from and ordering by all its fields let it provide the order),
  // so a slot with thousands of facts costs $text_limit reads. A named value scores as a named subject.
  UNWIND $slot_keys AS slot
  CALL (slot) {
    MATCH (k:Memory)
    USING INDEX k:Memory(namespace, slot, valid_from)
    WHERE k.namespace = $namespace AND k.slot = slot AND k.valid_from > $epoch
    WITH k ORDER BY k.namespace DESC, k.slot DESC, k.valid_from DESC LIMIT $text_limit
    RETURN k
  }
  WITH k WHERE k.activation >= $alive
  WITH k, CASE WHEN k.value_key IN $entity_keys THEN 1.0 ELSE $slot_only END AS score
  ORDER BY score DESC, k.valid_from DESC
  LIMIT $text_limit
  RETURN collect({node: k, score: score}) AS slot_hits
}
CALL () {
  // A query naming a time: the events and turns of that window.
  // Newest first from the index (ordering by all its fields lets it provide the order): a month's
  // window at 100k nodes holds ~2,300 events, of which $text_limit are read.
  MATCH (x:Memory)
  USING INDEX x:Memory(namespace, event_time)
  WHERE x.namespace = $namespace AND x.event_time >= $window_start AND x.event_time < $window_end
    AND $has_window AND x.activation >= $alive
  WITH x ORDER BY x.namespace DESC, x.event_time DESC LIMIT $text_limit
  RETURN collect({node: x, score: $window_score}) AS event_hits
}
CALL () {
  UNWIND $hot_seeds AS h
  MATCH (d:Memory {namespace: $namespace, id: h.id})
  USING INDEX d:Memory(namespace, id)
  WHERE d.activation >= $alive
  RETURN collect({node: d, score: h.score}) AS hot_hits
}
WITH text_hits, entity_hits + subject_hits + slot_hits + event_hits AS entity_hits, hot_hits,
     reduce(top = 0.0, h IN text_hits | CASE WHEN h.score > top THEN h.score ELSE top END) AS top
WITH [h IN text_hits | {node: h.node, text: h.score / top, entity: 0.0, hot: 0.0}]
     + [h IN entity_hits | {node: h.node, text: 0.0, entity: h.score, hot: 0.0}]
     + [h IN hot_hits | {node: h.node, text: 0.0, entity: 0.0, hot: h.score}] AS raw
CALL (raw) {
  UNWIND raw AS r
  WITH r.node AS n, max(r.text) AS text, max(r.entity) AS entity, max(r.hot) AS hot
  WITH n, text, entity, hot,
       CASE WHEN text >= entity AND text >= hot THEN text WHEN entity >= hot THEN entity ELSE hot END AS score
  ORDER BY score DESC
  LIMIT $seed_limit
  RETURN collect({node: n, act: score, text: text, entity: entity, hot: hot}) AS level0
}
CALL (level0) {
  UNWIND level0 AS f
  WITH f.node AS x, f.act AS act
  WHERE $max_depth >= 1 AND COUNT { (x)--() } <= $max_fanout
  MATCH (x)-[r]-(n)
  WITH n, x, act * coalesce(r.weight, 1.0) * $hop_decay AS act
  WHERE act >= $min_activation
  WITH n, max(act) AS act, count(DISTINCT x) AS seeds_reaching
  ORDER BY act DESC
  WITH n, act, seeds_reaching WHERE n.activation >= $alive  // read lazily, best first, until $cap pass
  LIMIT $cap
  RETURN collect({node: n, act: act, seeds_reaching: seeds_reaching}) AS level1
}
CALL (level1) {
  UNWIND level1 AS f
  WITH f.node AS x, f.act AS act
  WHERE $max_depth >= 2 AND COUNT { (x)--() } <= $max_fanout
  MATCH (x)-[r]-(n)
  WITH n, max(act * coalesce(r.weight, 1.0) * $hop_decay) AS act
  WHERE act >= $min_activation
  ORDER BY act DESC
  WITH n, act WHERE n.activation >= $alive
  LIMIT $cap
  RETURN collect({node: n, act: act}) AS level2
}
CALL (level2) {
  UNWIND level2 AS f
  WITH f.node AS x, f.act AS act
  WHERE $max_depth >= 3 AND COUNT { (x)--() } <= $max_fanout
  MATCH (x)-[r]-(n)
  WITH n, max(act * coalesce(r.weight, 1.0) * $hop_decay) AS act
  WHERE act >= $min_activation
  ORDER BY act DESC
  WITH n, act WHERE n.activation >= $alive
  LIMIT $cap
  RETURN collect({node: n, act: act}) AS level3
}
WITH level0, size(level0) + size(level1) + size(level2) AS expanded,
     level1 + level2 + level3 AS reached_levels
CALL (level0, reached_levels) {
  UNWIND level0 + [s IN reached_levels | {node: s.node, text: 0.0, entity: 0.0, hot: 0.0, spread: s.act,
                                          seeds_reaching: s.seeds_reaching}] AS e
  WITH e.node AS n, max(e.text) AS text, max(e.entity) AS entity, max(e.hot) AS hot,
       max(coalesce(e.spread, 0.0)) AS spread, max(coalesce(e.seeds_reaching, 0)) AS seeds_reaching
  ORDER BY CASE WHEN text + entity + hot > spread THEN text + entity + hot ELSE spread END DESC
  LIMIT $result_limit
  RETURN collect({text: text, entity: entity, hot: hot, spread: spread, seeds_reaching: seeds_reaching,
// include: card
  }) AS rows
}
RETURN rows, expanded, size(level0) AS seeds

// fragment: card
// What a memory card shows (and what fusion ranks by) for node `n`, as the entries of a map literal;
// no full content. Times come back as ISO 8601 strings in `times` (parsed by the caller): the
// driver's DateTime values cost ~20 us each to decode, which was half the time of reading the cards.
// Both queries return their cards as ONE record holding a list: the driver's Python work per record
// was ~25 us (one record instead of 50: ~1.3 ms less CPU per recall, measured).
    id: n.id, type: [label IN labels(n) WHERE label <> 'Memory'][0],
    node: n {.label, .summary, .confidence, .source, .agent_id, .private, .source_turn_ids, .superseded_by, .withdrawn,
             .session_id, .subject_key, .slot, .value_key, .speaker},
    times: {timestamp: toString(n.timestamp), event_time: toString(n.event_time), event_end: toString(n.event_end),
            valid_from: toString(n.valid_from), valid_to: toString(n.valid_to), started_at: toString(n.started_at),
            ended_at: toString(n.ended_at), created_at: toString(n.created_at)}

// name: speakers
// The name keys of the namespace's speakers: each Person some turn references. The recall weighs
// their names down in the full-text query and leaves them out of the embedded one
// (app/recall/query.py, `dense_query`), and matches the short forms of Chinese ones itself (晓雯 for
// 林晓雯: app/extract/names.cjk_name_forms). Read once per namespace every few seconds
// (app/recall/service.py), at most $limit + 1 of them (more than $limit: the caller seeks the query's
// own keys instead, with `speakers_named`). The EXISTS stops at the first such turn.
CYPHER replan=skip
MATCH (p:Memory)
USING INDEX p:Memory(namespace, name_key)
WHERE p.namespace = $namespace AND p.name_key IS NOT NULL AND p:Person
  AND EXISTS { MATCH (p)<-[:REFERENCE]-(:Dialogue) }
WITH DISTINCT p.name_key AS key LIMIT $limit + 1
RETURN collect(key) AS speakers

// name: speakers_named
// Which of the query's name keys ($keys, padded with $no_match) name a speaker of the namespace, for
// a namespace with more speakers than `speakers` reads.
CYPHER replan=skip
MATCH (p:Memory)
USING INDEX p:Memory(namespace, name_key)
WHERE p.namespace = $namespace AND p.name_key IN $keys AND p:Person
  AND EXISTS { MATCH (p)<-[:REFERENCE]-(:Dialogue) }
RETURN collect(DISTINCT p.name_key) AS speakers

// name: cards
// The cards of the given nodes (the cold path's hits; the hot query returns its own).
CYPHER replan=skip
UNWIND $ids AS id
MATCH (n:Memory {namespace: $namespace, id: id})
USING INDEX n:Memory(namespace, id)
RETURN collect({
// include: card
}) AS cards

// name: replies
// The turns up to two places before or after the given turns ($ids, padded with $no_match) in their
// sessions' TEMPORAL chains, each with the turn it is beside (`origin`), how far (1 or 2) and its
// card fields: fusion credits the ones said by a speaker the query names, what they said around the
// leading cards (app/recall/fusion.py, `reply_credit`). One record holding a list, as `cards`.
CYPHER replan=skip
UNWIND $ids AS id
MATCH (d:Memory {namespace: $namespace, id: id})
USING INDEX d:Memory(namespace, id)
WHERE d:Dialogue
MATCH path = (d)-[:TEMPORAL*1..2]-(n:Dialogue)
WHERE all(x IN nodes(path) WHERE x:Dialogue)
RETURN collect({origin: id, distance: length(path),
// include: card
}) AS replies

// fragment: visible
// Node `v` is visible to the reader: not another agent's private memory, unless the reader sees
// private memories ($sees_private: an admin). Used as `all(v IN nodes(p) WHERE <visible>)`, so a
// hidden node is not shown, nor is what lies only beyond it.
(v.private IS NULL OR $sees_private OR v.agent_id = $viewer_agent)

// name: hidden_ids
// Which of $ids the reader cannot see: missing from the namespace, or another agent's private memory.
UNWIND $ids AS id
OPTIONAL MATCH (v:Memory {namespace: $namespace, id: id})
WITH id, v
WHERE v IS NULL OR NOT
// include: visible
RETURN collect(id) AS hidden

// name: details
// The full content of the given nodes the reader may see, and a task's status and the memories it
// names (the context builder: full content where the budget allows; under context pressure, done
// tasks lose their details and the next step's named memories are added).
UNWIND $ids AS id
MATCH (v:Memory {namespace: $namespace, id: id})
WHERE
// include: visible
RETURN v.id AS id, v.content AS content, v.status AS status, v.related_ids AS related_ids

// A node's neighbourhood in both directions, nearest and strongest first: one query per depth
// (related_1..3), since a variable-length bound cannot be a parameter, and expanding 3 hops to keep
// 2 cost a hub's neighbourhood seconds at 100k nodes (measured: scripts/bench_explorer.py).
// name: related_1
// The nodes 1 hop away.
MATCH (s:Memory {namespace: $namespace, id: $id})
MATCH p = (s)-[*1..1]-(n:Memory)
// include: related_ranked

// name: related_2
// The nodes up to 2 hops away.
MATCH (s:Memory {namespace: $namespace, id: $id})
MATCH p = (s)-[*1..2]-(n:Memory)
// include: related_ranked

// name: related_3
// The nodes up to 3 hops away.
MATCH (s:Memory {namespace: $namespace, id: $id})
MATCH p = (s)-[*1..3]-(n:Memory)
// include: related_ranked

// fragment: related_ranked
// The paths `p` from `s` to `n`, through visible nodes only, ranked: nearest, then strongest.
WHERE n <> s AND all(v IN nodes(p) WHERE
// include: visible
)
WITH n, min(length(p)) AS distance,
     max(reduce(w = 1.0, r IN relationships(p) | w * coalesce(r.weight, 1.0))) AS strength,
     head(collect([r IN relationships(p) | type(r)])) AS via
ORDER BY distance ASC, strength DESC, n.id ASC
LIMIT $limit
RETURN n.id AS id, [label IN labels(n) WHERE label <> 'Memory'][0] AS type, n.summary AS summary,
       n.source_turn_ids AS source_turn_ids, distance, strength, via, n.activation AS activation,
       n.importance AS importance, n.superseded_by IS NOT NULL AS superseded

// name: fan_out
// One hop of a neighbourhood bounded per node (`related` with `fanout`, what the memory explorer
// draws): for each node of $frontier, its $fanout strongest visible neighbours (by the relationship's
// weight, then activation, then id) that are not in $seen and not next to $centre (past the first hop
// a node next to the centre is one hop away, not two; null when $seen holds all the centre's
// neighbours: the check reads relationships per candidate, costly between two hubs), and how many
// such neighbours it has in all. A hub (a speaker's Person node has a REFERENCE from each of its
// turns) costs one pass over its own relationships, instead of every path through them being
// enumerated and ranked.
UNWIND $frontier AS frontier_id
MATCH (f:Memory {namespace: $namespace, id: frontier_id})
OPTIONAL MATCH (c:Memory {namespace: $namespace, id: $centre})
CALL (f, c) {
  MATCH (f)-[r]-(v:Memory)
  WHERE NOT v.id IN $seen AND (c IS NULL OR NOT EXISTS { (v)--(c) }) AND
// include: visible
  RETURN count(DISTINCT v) AS reachable
}
// The strongest: a top-k (ORDER BY with LIMIT), not a sort of a hub's every neighbour; `neighbours`
// comes in no particular order.
CALL (f, c) {
  MATCH (f)-[r]-(v:Memory)
  WHERE NOT v.id IN $seen AND (c IS NULL OR NOT EXISTS { (v)--(c) }) AND
// include: visible
  WITH v, max(coalesce(r.weight, 1.0)) AS weight, collect(r) AS rels
  ORDER BY weight DESC, coalesce(v.activation, 0.0) DESC, v.id
  LIMIT $fanout
  RETURN collect({id: v.id, type: [label IN labels(v) WHERE label <> 'Memory'][0], summary: v.summary,
                  source_turn_ids: v.source_turn_ids, activation: v.activation, importance: v.importance,
                  superseded: v.superseded_by IS NOT NULL, weight: weight,
                  via: [x IN rels WHERE coalesce(x.weight, 1.0) = weight | type(x)][0]}) AS neighbours
}
RETURN f.id AS id, reachable, neighbours

// name: path
// The shortest path between two nodes (at most 6 hops), as nodes and relationship types in order.
MATCH (a:Memory {namespace: $namespace, id: $from_id})
MATCH (b:Memory {namespace: $namespace, id: $to_id})
// Every node after `a` must be visible (checked inside the pattern, so a path around a hidden node
// is still found); `a` itself is checked before.
MATCH p = SHORTEST 1 (a) (()-[]-(v WHERE
// include: visible
)){1,6} (b)
RETURN [n IN nodes(p) | {id: n.id, type: [label IN labels(n) WHERE label <> 'Memory'][0], summary: n.summary,
                         source_turn_ids: n.source_turn_ids}] AS nodes,
       [r IN relationships(p) | type(r)] AS relationships

// name: task_chain
// A task's chain: the task, what it is part of (HIERARCHY up), its subtasks and what it depends on
// or is followed by (HIERARCHY, DEPENDENCY, TEMPORAL outgoing), up to 5 hops, in path order.
MATCH (t:Memory {namespace: $namespace, id: $id})
OPTIONAL MATCH up = (parent:Memory)-[:HIERARCHY*1..5]->(t)
WHERE all(v IN nodes(up) WHERE
// include: visible
)
WITH t, collect({node: parent, distance: -length(up)}) AS ancestors
OPTIONAL MATCH down = (t)-[:HIERARCHY|DEPENDENCY|TEMPORAL*1..5]->(next:Memory)
WHERE all(v IN nodes(down) WHERE
// include: visible
)
WITH t, ancestors, collect({node: next, distance: length(down)}) AS descendants
UNWIND ancestors + [{node: t, distance: 0}] + descendants AS step
WITH step WHERE step.node IS NOT NULL
WITH step.node AS n, min(step.distance) AS distance
ORDER BY distance ASC, n.id ASC
LIMIT $limit
RETURN n.id AS id, [label IN labels(n) WHERE label <> 'Memory'][0] AS type, n.summary AS summary,
       n.source_turn_ids AS source_turn_ids, distance

// name: listing
// A namespace's memories newest first, filtered (GET …/memories and the memory_search tool). Keyset
// pagination on (created_at, id) descending: the cursor's created_at is the upper end of the index
// range ($upper), so a page reads from where the last one stopped, never from the newest again; the
// index hands the nodes over newest first (ordering by all its fields lets it provide the order) and
// the id breaks ties (nodes written by one batch share a created_at). Filters other than the time
// range are checked on the nodes read, so a selective filter reads more nodes than it returns.
// Soft-forgotten nodes (activation < $alive) only when asked; another agent's private memories never,
// unless the reader sees them. SEEK keeps the planner off an in-order scan of the whole index (see
// transfer.cypher's export_nodes).
MATCH (v:Memory)
USING INDEX SEEK v:Memory(namespace, created_at)
WHERE v.namespace = $namespace AND v.created_at >= $since AND v.created_at < $until
  AND v.created_at <= datetime($upper)
  AND ($after_id IS NULL OR v.created_at < datetime($upper) OR v.id < $after_id)
  AND ($types IS NULL OR any(label IN labels(v) WHERE label IN $types))
  AND ($agent_id IS NULL OR v.agent_id = $agent_id)
  AND ($importance IS NULL OR v.importance IN $importance)
  AND all(tag IN $tags WHERE tag IN v.tags)
  AND ($include_forgotten OR v.activation >= $alive)
  AND
// include: visible
WITH v ORDER BY v.namespace DESC, v.created_at DESC, v.id DESC
LIMIT $limit
RETURN v.id AS id, [label IN labels(v) WHERE label <> 'Memory'][0] AS type, v.label AS label,
       v.summary AS summary, v.importance AS importance, coalesce(v.tags, []) AS tags,
       toString(v.created_at) AS created_at, toString(v.event_time) AS event_time, v.agent_id AS agent_id,
       v.source AS source, coalesce(v.private, false) AS private
