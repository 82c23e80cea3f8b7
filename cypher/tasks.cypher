// Tasks (app/memory/tasks.py, app/memory/suspension.py): `:Memory:Task` nodes, subtasks on HIERARCHY
// edges (parent -> child), dependencies on DEPENDENCY edges (task -> what it waits for). A task is
// created by memory.create and its edges by link.create; these are the reads and writes of their own.

// name: lookup
// What the task routes check about each of $ids before linking to it: whether it exists, is a Task,
// who may see it (private, agent_id), and its status.
UNWIND $ids AS id
OPTIONAL MATCH (m:Memory {namespace: $namespace, id: id})
RETURN id, m IS NOT NULL AS found, coalesce(m:Task, false) AS task, m.private AS private, m.agent_id AS agent_id,
       m.status AS status

// name: tree
// A task and its subtasks down to $depth HIERARCHY levels (at most 10), each once at its shallowest
// level, with its parent, the tasks it depends on (with their status) and whether it has subtasks
// (those below the last level read are not returned).
MATCH (root:Memory {namespace: $namespace, id: $id})
WHERE root:Task
MATCH p = (root)-[:HIERARCHY*0..10]->(t:Task)
WHERE length(p) <= $depth
WITH t, min(length(p)) AS depth
OPTIONAL MATCH (parent:Task {namespace: $namespace})-[:HIERARCHY]->(t)
WITH t, depth, min(parent.id) AS parent_id
RETURN t {.*} AS node, depth, parent_id,
       [(t)-[:DEPENDENCY]->(d:Memory {namespace: $namespace}) | {id: d.id, status: coalesce(d.status, 'pending')}]
         AS depends_on,
       EXISTS { (t)-[:HIERARCHY]->(:Task {namespace: $namespace}) } AS has_subtasks
ORDER BY depth, t.created_at, t.id

// name: dependency_cycles
// Which of $depends_on would close a DEPENDENCY cycle through task $id: $id itself, or a task that
// already depends on $id, directly or through others.
UNWIND $depends_on AS dep
MATCH (d:Memory {namespace: $namespace, id: dep})
WHERE dep = $id OR EXISTS { (d)-[:DEPENDENCY*1..]->(:Memory {namespace: $namespace, id: $id}) }
RETURN collect(dep) AS closing

// name: below
// Whether $parent_id is task $id or one of its subtasks at any depth: moving $id under it would make
// a HIERARCHY cycle.
MATCH (t:Memory {namespace: $namespace, id: $id})
RETURN $parent_id = $id OR EXISTS { (t)-[:HIERARCHY*1..]->(:Memory {namespace: $namespace, id: $parent_id}) }
       AS below

// name: drop_dependencies
// PATCH depends_on: the DEPENDENCY edges of task $id to tasks no longer in $keep go (link.create adds
// the new ones).
MATCH (t:Memory {namespace: $namespace, id: $id})-[r:DEPENDENCY]->(d:Task {namespace: $namespace})
WHERE NOT d.id IN $keep
DELETE r
RETURN count(*) AS dropped

// name: drop_parents
// PATCH parent_id: the HIERARCHY edges from parent tasks other than $parent_id (null: every one) to
// task $id go; a task has one parent.
MATCH (p:Task {namespace: $namespace})-[r:HIERARCHY]->(t:Memory {namespace: $namespace, id: $id})
WHERE $parent_id IS NULL OR p.id <> $parent_id
DELETE r
RETURN count(*) AS dropped

// name: set_properties
// Several tasks' properties at once ($rows: [{id, properties}]; a null value removes the property):
// suspend and resume change a whole tree's statuses in one transaction.
UNWIND $rows AS row
MATCH (m:Memory {namespace: $namespace, id: row.id})
WHERE m:Task
SET m += row.properties
RETURN count(m) AS updated

// name: neighbours
// The nodes one hop from $ids (any relationship, either direction) that are not among them, most
// activated first: the neighbourhood a suspension saves with the task's related memories.
UNWIND $ids AS id
MATCH (:Memory {namespace: $namespace, id: id})--(n:Memory {namespace: $namespace})
WHERE NOT n.id IN $ids
WITH DISTINCT n
ORDER BY n.activation DESC, n.id ASC
LIMIT $limit
RETURN n.id AS id

// name: nodes
// The nodes of $ids with their labels and every property (a suspension's subgraph; the export's shape).
UNWIND $ids AS id
MATCH (m:Memory {namespace: $namespace, id: id})
RETURN m.id AS id, labels(m) AS labels, properties(m) AS properties
ORDER BY id

// name: relationships_among
// The relationships between nodes of $ids (both ends among them), with their properties: a
// suspension's subgraph, and the edges of a neighbourhood the memory explorer draws.
UNWIND $ids AS id
MATCH (a:Memory {namespace: $namespace, id: id})-[r]->(b:Memory {namespace: $namespace})
WHERE b.id IN $ids
RETURN type(r) AS type, a.id AS source, b.id AS target, properties(r) AS properties
ORDER BY source, type, target

// name: restore_activations
// Resume: each node's activation anchors as of the suspension ($rows: [{id, activation,
// activation_base, last_accessed}], computed by app/domain/decay.py). A node accessed after the
// suspension keeps its own: that access is newer than what the suspension saved.
UNWIND $rows AS row
MATCH (m:Memory {namespace: $namespace, id: row.id})
WHERE m.last_accessed <= $suspended_at
SET m.activation = row.activation, m.activation_base = row.activation_base, m.last_accessed = row.last_accessed
RETURN collect(m.id) AS restored
