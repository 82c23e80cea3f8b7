// API keys: `(:ApiKey {id, key_hash, key_namespace, role, agent_id, label, created_at, expires_at})`,
// outside the `:Memory` graph. A key is scoped by `key_namespace` (a parameter here, like every
// other query's `$namespace`); only the bootstrap admin lists across namespaces.

// name: create
// The id and the hash are unique (schema.cypher): a collision fails the write instead of
// shadowing another key.
CREATE (k:ApiKey {id: $id, key_hash: $key_hash, key_namespace: $namespace, role: $role, agent_id: $agent_id,
                  label: $label, created_at: $now, expires_at: $expires_at})
RETURN k {.id, .key_namespace, .role, .agent_id, .label, .created_at, .expires_at} AS key

// name: by_hash
// Authentication: the key whose hash this is (the caller's key is never stored or compared in clear).
MATCH (k:ApiKey {key_hash: $key_hash})
RETURN k {.id, .key_hash, .key_namespace, .role, .agent_id, .label, .created_at, .expires_at} AS key

// name: by_id
MATCH (k:ApiKey {id: $id})
RETURN k {.id, .key_namespace, .role, .agent_id, .label, .created_at, .expires_at} AS key

// name: list
// The keys of one namespace, oldest first; never the hash.
MATCH (k:ApiKey {key_namespace: $namespace})
RETURN k {.id, .key_namespace, .role, .agent_id, .label, .created_at, .expires_at} AS key
ORDER BY k.created_at, k.id

// name: list_all
// Every key (the bootstrap admin's listing).
MATCH (k:ApiKey)
RETURN k {.id, .key_namespace, .role, .agent_id, .label, .created_at, .expires_at} AS key
ORDER BY k.key_namespace, k.created_at, k.id

// name: delete
// Revocation erases the key; returns its hash so the process's cache can drop it at once.
MATCH (k:ApiKey {id: $id})
WITH k, k.key_hash AS key_hash
DELETE k
RETURN key_hash

// name: delete_namespace_keys
// Erasing a namespace also revokes its keys (a later namespace of the same name starts keyless).
MATCH (k:ApiKey {key_namespace: $namespace})
WITH k, k.key_hash AS key_hash
DELETE k
RETURN key_hash
