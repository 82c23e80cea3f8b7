// Entity resolution, aliases, merges and splits (app/memory/entities.py, app/memory/entity_merge.py).
// Aliases and merge records are not memories: `:EntityAlias` and `:EntityMerge` nodes, never
// `:Memory`, keyed by namespace (recall, export and counts do not see them).

// name: resolve
// $names: [{type, key, derived, given}]: for each name the node of that type the namespace holds
// under it: by `name_key` (the derived id first, then the oldest), by an explicit alias, and, for a
// possible first name (`given`), up to two Persons whose name starts with it and a space.
UNWIND $names AS name
CALL (name) {
  OPTIONAL MATCH (e:Memory {namespace: $namespace, name_key: name.key})
  USING INDEX e:Memory(namespace, name_key)
  WHERE name.type IN labels(e)
  WITH e
  ORDER BY CASE WHEN e.id = name.derived THEN 0 ELSE 1 END, e.created_at, e.id
  LIMIT 1
  RETURN e.id AS by_name
}
CALL (name) {
  OPTIONAL MATCH (a:EntityAlias {namespace: $namespace, type: name.type, key: name.key})
  OPTIONAL MATCH (t:Memory {namespace: $namespace, id: a.target_id})
  RETURN t.id AS by_alias
}
WITH name, by_name, by_alias,
     COLLECT {
       MATCH (p:Memory)
       USING INDEX p:Memory(namespace, name_key)
       WHERE name.given AND p.namespace = $namespace AND p.name_key STARTS WITH name.key + ' ' AND p:Person
       RETURN DISTINCT p.id
       LIMIT 2
     } AS by_first_name
RETURN name.type AS type, name.key AS key, by_name, by_alias, by_first_name

// name: bind_aliases
// $aliases: [{key, name}] of node $id (of type $type): each alias key names the node from now on.
// A key another node holds already comes back with that node's id (the caller refuses it).
UNWIND $aliases AS alias
MERGE (a:EntityAlias {namespace: $namespace, type: $type, key: alias.key})
  ON CREATE SET a.target_id = $id, a.name = alias.name, a.origin = $origin, a.created_at = $now
RETURN alias.key AS key, a.target_id AS target_id

// name: set_aliases
// The aliases shown on the node (`aliases`, as written; `alias_keys`, normalized), added to.
MATCH (m:Memory {namespace: $namespace, id: $id})
SET m.aliases = coalesce(m.aliases, []) + [name IN $names WHERE NOT name IN coalesce(m.aliases, [])],
    m.alias_keys = coalesce(m.alias_keys, []) + [key IN $keys WHERE NOT key IN coalesce(m.alias_keys, [])]
RETURN m.id AS id

// name: adopt
// A saved Person/Concept takes over the node a turn created for the same name (`placeholder`:
// content made up by the write path): its label, content and the caller's fields, once.
MATCH (m:Memory {namespace: $namespace, id: $id})
WHERE m.placeholder = true
SET m += $properties
REMOVE m.placeholder
RETURN m {.*} AS node, [label IN labels(m) WHERE label <> 'Memory'][0] AS type

// name: redirect
// Where a merged node's id leads: the survivor of the merge in force, if any.
MATCH (r:EntityMerge {namespace: $namespace, merged_id: $id})
WHERE r.state = 'merged'
RETURN r.keep_id AS keep_id, r.id AS merge_id
LIMIT 1

// name: record
// A merge record by its id, or the one in force for a merged id.
MATCH (r:EntityMerge {namespace: $namespace})
WHERE r.id = $merge_id OR (r.merged_id = $merged_id AND r.state = 'merged')
RETURN r {.*} AS record
ORDER BY r.state = 'merged' DESC
LIMIT 1

// name: node_relationships
// Every relationship on a node, with its direction, for a merge record.
MATCH (m:Memory {namespace: $namespace, id: $id})-[r]-(other:Memory {namespace: $namespace})
RETURN type(r) AS type, startNode(r).id AS source_id, endNode(r).id AS target_id, r {.*} AS properties
ORDER BY type, source_id, target_id

// name: update_survivor
// The survivor gains the merged node's provenance and name: its source turns, its merged ids, and
// its name key when it had none.
MATCH (m:Memory {namespace: $namespace, id: $id})
SET m.source_turn_ids = m.source_turn_ids + [t IN $turn_ids WHERE NOT t IN m.source_turn_ids],
    m.merged_ids = coalesce(m.merged_ids, []) + [i IN [$merged_id] WHERE NOT i IN coalesce(m.merged_ids, [])],
    m.name_key = coalesce(m.name_key, $name_key),
    m.updated_at = $now
RETURN m.id AS id

// name: unset_aliases
// Split: the names the merge showed on the survivor go again.
MATCH (m:Memory {namespace: $namespace, id: $id})
SET m.aliases = [name IN coalesce(m.aliases, []) WHERE NOT name IN $names],
    m.alias_keys = [key IN coalesce(m.alias_keys, []) WHERE NOT key IN $keys]
RETURN m.id AS id

// name: restore_survivor
// Split: what the merge gave the survivor is taken back (turns, merged id, a name key it set).
MATCH (m:Memory {namespace: $namespace, id: $id})
SET m.source_turn_ids = [t IN m.source_turn_ids WHERE NOT t IN $turn_ids],
    m.merged_ids = [i IN coalesce(m.merged_ids, []) WHERE i <> $merged_id],
    m.name_key = CASE WHEN $name_key_set THEN null ELSE m.name_key END,
    m.updated_at = $now
RETURN m.id AS id

// name: repoint_aliases
// Aliases of node $from_id now name node $to_id; returns the keys moved.
MATCH (a:EntityAlias {namespace: $namespace, target_id: $from_id})
SET a.target_id = $to_id
RETURN collect(a.key) AS keys

// name: restore_aliases
// Split: the aliases the merge moved go back to the merged node; those it made are removed.
OPTIONAL MATCH (a:EntityAlias {namespace: $namespace, type: $type})
WHERE a.key IN $moved_keys AND a.target_id = $keep_id
SET a.target_id = $merged_id
WITH count(a) AS restored
OPTIONAL MATCH (made:EntityAlias {namespace: $namespace, origin: $merge_id})
WITH restored, collect(made) AS made
FOREACH (alias IN made | DETACH DELETE alias)
RETURN restored

// name: delete_links
// $links: [{type, source_id, target_id}]: the relationships a merge added, removed by its split.
UNWIND $links AS link
MATCH (a:Memory {namespace: $namespace, id: link.source_id})-[r]->(b:Memory {namespace: $namespace, id: link.target_id})
WHERE type(r) = link.type
DELETE r
RETURN count(r) AS deleted

// name: save_record
// The merge record (MERGE on its id: a pair merged again after a split reuses it).
MERGE (r:EntityMerge {namespace: $namespace, id: $merge_id})
SET r += $record
RETURN r {.*} AS record

// name: mark_split
MATCH (r:EntityMerge {namespace: $namespace, id: $merge_id})
SET r.state = 'split', r.split_at = $now, r.split_by = $agent_id
RETURN r {.*} AS record

// name: delete_records
// Erasing a namespace: its aliases and merge records too.
CALL () {
  MATCH (a:EntityAlias {namespace: $namespace})
  DETACH DELETE a
  RETURN count(a) AS aliases
}
CALL () {
  MATCH (r:EntityMerge {namespace: $namespace})
  DETACH DELETE r
  RETURN count(r) AS merges
}
RETURN aliases + merges AS deleted
