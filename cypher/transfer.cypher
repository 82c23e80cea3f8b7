// Export and import of one namespace (app/domain/snapshot.py is the file format).

// name: export_nodes
MATCH (m:Memory {namespace: $namespace})
RETURN m.id AS id, labels(m) AS labels, properties(m) AS properties
ORDER BY id

// name: export_relationships
MATCH (a:Memory {namespace: $namespace})-[r]->(b:Memory {namespace: $namespace})
RETURN type(r) AS type, a.id AS source, b.id AS target, properties(r) AS properties
ORDER BY type, source, target

// name: import_nodes
// $nodes: [{type, properties}]; every type is a validated NodeType value and every
// properties.namespace is $namespace, with its properties.namespace_term.
UNWIND $nodes AS node
CREATE (m:Memory:$(node.type))
SET m = node.properties
RETURN count(m) AS created

// name: import_relationships
// $relationships: [{type, source, target, properties}]; every type is a validated RelType value.
UNWIND $relationships AS rel
MATCH (a:Memory {namespace: $namespace, id: rel.source})
MATCH (b:Memory {namespace: $namespace, id: rel.target})
CREATE (a)-[r:$(rel.type)]->(b)
SET r = rel.properties
RETURN count(r) AS created
