// The read routes the explorer calls, with the key kept in this tab's sessionStorage.
// Read-only: every call below is a route that needs at most the "reader" role.

const KEY = "hippograph.key";
const NAMESPACE = "hippograph.namespace";

export class Refused extends Error {
  constructor(status, body) {
    super(body?.error?.message || `HTTP ${status}`);
    this.status = status;
  }
}

export const session = {
  get key() { return sessionStorage.getItem(KEY); },
  set key(value) { value ? sessionStorage.setItem(KEY, value) : sessionStorage.removeItem(KEY); },
  get namespace() { return sessionStorage.getItem(NAMESPACE); },
  set namespace(value) { value ? sessionStorage.setItem(NAMESPACE, value) : sessionStorage.removeItem(NAMESPACE); },
};

async function call(method, path, { query, body } = {}) {
  const url = new URL(path, window.location.origin);
  for (const [name, value] of Object.entries(query || {})) url.searchParams.set(name, value);
  const response = await fetch(url, {
    method,
    headers: { Authorization: `Bearer ${session.key}`, ...(body ? { "Content-Type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const answer = await response.json().catch(() => null);
  if (!response.ok) throw new Refused(response.status, answer);
  return answer;
}

const ns = () => `/v1/namespaces/${encodeURIComponent(session.namespace)}`;
const node = (id) => `${ns()}/nodes/${encodeURIComponent(id)}`;

export const api = {
  namespaces: () => call("GET", "/v1/namespaces"),
  namespace: () => call("GET", ns()),
  recall: (query, includeHistory) =>
    call("POST", `${ns()}/recall`, { body: { query, top_k: 20, include_history: includeHistory } }),
  node: (id) => call("GET", node(id)),
  // Bounded per node (`fanout`: the strongest `limit` neighbours of each node), so a hub answers fast;
  // the answer says how many neighbours the node has (`neighbours`) for "N more".
  related: (id, depth, limit) =>
    call("GET", `${node(id)}/related`, { query: { depth, limit, fanout: limit, edges: true } }),
  decay: (id, days = 14) => call("GET", `${node(id)}/decay`, { query: { days } }),
  // The newest memories the key may see (other agents' private ones are left out below admin).
  memories: (limit = 200) => call("GET", `${ns()}/memories`, { query: { limit } }),
  jobRuns: (limit = 10) => call("GET", `${ns()}/jobs/runs`, { query: { limit } }),
  // A named query of the analytics catalogue (cypher/analytics/), bounded by `limit`.
  analytics: (name, params = {}, limit = 50) => call("POST", `${ns()}/cypher`, { body: { name, params, limit } }),
};
