// The graph schema, applied idempotently at start-up (IF NOT EXISTS). Schema commands touch no
// memory data, so they take no $namespace.

// name: memory_key
// A node id is unique within its namespace (composite uniqueness is available in Community).
CREATE CONSTRAINT memory_key IF NOT EXISTS FOR (m:Memory) REQUIRE (m.namespace, m.id) IS UNIQUE

// name: namespace_name
CREATE CONSTRAINT namespace_name IF NOT EXISTS FOR (n:Namespace) REQUIRE n.name IS UNIQUE

// name: memory_namespace
CREATE INDEX memory_namespace IF NOT EXISTS FOR (m:Memory) ON (m.namespace)

// name: memory_importance
CREATE INDEX memory_importance IF NOT EXISTS FOR (m:Memory) ON (m.namespace, m.importance)

// name: memory_activation
CREATE INDEX memory_activation IF NOT EXISTS FOR (m:Memory) ON (m.namespace, m.activation)

// name: memory_last_accessed
CREATE INDEX memory_last_accessed IF NOT EXISTS FOR (m:Memory) ON (m.namespace, m.last_accessed)

// name: memory_fact_slot
// The write path looks up the fact in force for a subject and slot.
CREATE INDEX memory_fact_slot IF NOT EXISTS FOR (m:Memory) ON (m.namespace, m.subject_key, m.slot)

// name: drop_memory_text_v1
// The first full-text index had no namespace field, so a busy namespace could crowd out the hits
// of another; it was replaced by `memory_text_ns` (itself replaced by `memory_text_v3`, below).
DROP INDEX memory_text IF EXISTS

// name: drop_memory_text_v2
// The second full-text index held the namespace name, which the analyzer splits into words: recall
// restricted its query to a namespace with a phrase query (positions read for every document of
// the namespace) and a name made of stop words ("the") restricted nothing. Replaced by
// `memory_text_v3`, over the one-term `namespace_term` (app/domain/inputs.namespace_term).
DROP INDEX memory_text_ns IF EXISTS

// name: memory_text_v3
// Full text over summary and content, plus the namespace's term (recall requires it inside the
// Lucene query, before the hit limit, so another namespace's hits never use up the limit). The
// label is not indexed: recall does not search it (a turn's label starts with its speaker's name).
// The `cjk` analyzer (Lucene CJKAnalyzer) indexes Chinese as overlapping bigrams and English as
// lower-cased words without stop words; measured against `standard-no-stop-words` on mixed text in
// docs/graph-schema.md.
CREATE FULLTEXT INDEX memory_text_v3 IF NOT EXISTS FOR (m:Memory) ON EACH [m.summary, m.content, m.namespace_term]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'cjk', `fulltext.eventually_consistent`: false}}

// name: memory_name
// Entity seeds of a recall: Person/Concept nodes by normalized name.
CREATE INDEX memory_name IF NOT EXISTS FOR (m:Memory) ON (m.namespace, m.name_key)

// name: drop_memory_slot_v1
// Slot seeds used to read every fact of a slot (~900 per slot at 100k nodes) to keep the newest;
// `memory_slot_recent` hands them over newest first.
DROP INDEX memory_slot IF EXISTS

// name: memory_slot_recent
// Slot seeds of a recall: the newest facts of a slot whatever the subject (index-ordered).
CREATE INDEX memory_slot_recent IF NOT EXISTS FOR (m:Memory) ON (m.namespace, m.slot, m.valid_from)

// name: memory_event_time
// Time-window seeds of a recall: events by date.
CREATE INDEX memory_event_time IF NOT EXISTS FOR (m:Memory) ON (m.namespace, m.event_time)

// name: memory_timestamp
// Time-window seeds of a recall: turns by their own timestamp.
CREATE INDEX memory_timestamp IF NOT EXISTS FOR (m:Memory) ON (m.namespace, m.timestamp)

// name: memory_subject
// A subject's events for its TEMPORAL chain (ingest.chain_events), read at every write of an event:
// without it the chain read every Experience node of the database.
CREATE INDEX memory_subject IF NOT EXISTS FOR (m:Memory) ON (m.namespace, m.subject_key)

// name: episode_namespace
// A namespace's sessions for their TEMPORAL chain (ingest.chain_episodes), read at every write:
// without it the chain read every Episode node of the database.
CREATE INDEX episode_namespace IF NOT EXISTS FOR (e:Episode) ON (e.namespace)

// name: memory_private
// The Cypher endpoint asks whether a namespace holds other agents' private memories (few, if any).
CREATE INDEX memory_private IF NOT EXISTS FOR (m:Memory) ON (m.namespace, m.private)

// name: memory_created
// The memory listing (GET …/memories, the memory_search tool) walks a namespace newest first from a
// cursor: a range seek on created_at that hands the nodes over in order.
CREATE INDEX memory_created IF NOT EXISTS FOR (m:Memory) ON (m.namespace, m.created_at)

// name: api_key_id
// API keys live outside the memory graph (`:ApiKey`, never `:Memory`, no `namespace` property, so
// no memory query and no analyst's Cypher can reach them). Looked up by id to revoke...
CREATE CONSTRAINT api_key_id IF NOT EXISTS FOR (k:ApiKey) REQUIRE k.id IS UNIQUE

// name: api_key_hash
// ...and by the SHA-256 of the key on every request (a cache absorbs most of these lookups).
CREATE CONSTRAINT api_key_hash IF NOT EXISTS FOR (k:ApiKey) REQUIRE k.key_hash IS UNIQUE

// name: api_key_namespace
// Listing a namespace's keys.
CREATE INDEX api_key_namespace IF NOT EXISTS FOR (k:ApiKey) ON (k.key_namespace)

// name: entity_alias_key
// An alias names one Person or Concept per namespace (app/memory/entities.py): the resolver looks a
// name up here after `memory_name`.
CREATE CONSTRAINT entity_alias_key IF NOT EXISTS FOR (a:EntityAlias) REQUIRE (a.namespace, a.type, a.key) IS UNIQUE

// name: entity_alias_target
// A merge moves the aliases of the merged node to the survivor.
CREATE INDEX entity_alias_target IF NOT EXISTS FOR (a:EntityAlias) ON (a.namespace, a.target_id)

// name: entity_merge_key
// Merge records (app/memory/entity_merge.py), by id...
CREATE CONSTRAINT entity_merge_key IF NOT EXISTS FOR (r:EntityMerge) REQUIRE (r.namespace, r.id) IS UNIQUE

// name: entity_merge_merged
// ...and by the merged node's id: an old id resolves to the survivor through its record.
CREATE INDEX entity_merge_merged IF NOT EXISTS FOR (r:EntityMerge) ON (r.namespace, r.merged_id)

// name: migration_single_records
// Before `migration_name` (next), processes starting at once on one database (the API and a worker)
// could both record a migration: one record of each is kept, so the constraint can be created.
MATCH (m:Migration)
WITH m.name AS name, collect(m) AS records
WHERE size(records) > 1
UNWIND tail(records) AS extra
DELETE extra

// name: migration_name
// One record per completed data migration (cypher/migrate.cypher): `mark_completed`'s MERGE locks the
// name through this constraint, so processes finishing a migration at once record it once.
CREATE CONSTRAINT migration_name IF NOT EXISTS FOR (m:Migration) REQUIRE m.name IS UNIQUE

// name: await_indexes
// Last: new indexes are online before the first write relies on them.
CALL db.awaitIndexes(60)
