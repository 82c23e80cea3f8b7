// name: association_clusters
// description: Hubs of learned associations: the nodes with the most ASSOCIATION edges (made by
// description: recalls that returned them together), with their strongest partners.
// param: min_weight float 0.0 Ignore associations weaker than this
// param: members int 10 Partners listed per hub
// param: limit int 20 How many hubs to return
MATCH (hub:Memory {namespace: $namespace})-[a:ASSOCIATION]-(other:Memory {namespace: $namespace})
USING INDEX hub:Memory(namespace)
WHERE a.weight >= $min_weight
WITH hub, a, other
ORDER BY a.weight DESC, other.id
WITH hub, count(a) AS associations, avg(a.weight) AS mean_weight,
     collect({id: other.id, summary: other.summary, weight: a.weight}) AS partners
RETURN hub.id AS id, hub.summary AS summary, associations, mean_weight, partners[..$members] AS partners
ORDER BY associations DESC, mean_weight DESC, id
LIMIT $limit
