// Engine checks. These touch no memory data, so they are the only queries without $namespace.

// name: ping
// Readiness probe: the database answers a query.
RETURN 1 AS ok

// name: server_version
// Server name, version and edition, for reports and the readiness endpoint.
CALL dbms.components() YIELD name, versions, edition
RETURN name, versions[0] AS version, edition
