/**
 * Every route of the API once: method, path template, OpenAPI operation id, and whether a call may be
 * sent again (the same rule per route as the Python client, hippograph/_requests.py). The tests hold
 * this table against openapi.json: a route of the document without an entry fails them.
 */

import type { operations } from "./schema.js";

export type Method = "GET" | "PUT" | "POST" | "PATCH" | "DELETE";

export interface Route {
  readonly method: Method;
  readonly path: string;
  readonly operationId: keyof operations;
  /** Sent again on 503 and on a failed connection (RetryPolicy). */
  readonly idempotent: boolean;
}

function route(method: Method, path: string, operationId: keyof operations, idempotent: boolean): Route {
  return { method, path, operationId, idempotent };
}

const NS = "/v1/namespaces/{ns}";

export const ROUTES = {
  // Probes and metrics (no key needed). readyz: its 503 is the answer, not a reason to wait.
  healthz: route("GET", "/healthz", "healthz", true),
  readyz: route("GET", "/readyz", "readyz", false),
  metrics: route("GET", "/metrics", "metrics", true),
  // Who the key is: its role, namespace and agent.
  whoAmI: route("GET", "/v1/me", "who_am_i", true),
  // Namespaces.
  listNamespaces: route("GET", "/v1/namespaces", "list_namespaces", true),
  putNamespace: route("PUT", NS, "put_namespace", true),
  getNamespace: route("GET", NS, "get_namespace", true),
  deleteNamespace: route("DELETE", NS, "delete_namespace", true),
  // Memories, links, nodes: the same memory or link again changes nothing.
  saveMemory: route("POST", `${NS}/memories`, "save_memory", true),
  listMemories: route("GET", `${NS}/memories`, "list_memories", true),
  addLink: route("POST", `${NS}/links`, "add_link", true),
  getNode: route("GET", `${NS}/nodes/{node_id}`, "get_node", true),
  projectDecay: route("GET", `${NS}/nodes/{node_id}/decay`, "project_decay", true),
  patchNode: route("PATCH", `${NS}/nodes/{node_id}`, "patch_node", true),
  forgetNode: route("DELETE", `${NS}/nodes/{node_id}`, "forget_node", true),
  // Entities (admin): the same merge or split again changes nothing.
  mergeEntities: route("POST", `${NS}/entities/merge`, "merge_entities", true),
  splitEntities: route("POST", `${NS}/entities/split`, "split_entities", true),
  // Forgetting on request: a repeat finds nothing more (it leaves an audit record of zeros).
  forget: route("POST", `${NS}/forget`, "forget", true),
  forgetAudit: route("GET", `${NS}/forget/audit`, "forget_audit", true),
  // Export and import (a repeat of a done import is a conflict).
  exportNamespace: route("GET", `${NS}/export`, "export_namespace", true),
  importNamespace: route("POST", `${NS}/import`, "import_namespace", false),
  // The write path: the server dedups (session_id, turn_id); a dead letter is replayed once.
  postTurns: route("POST", `${NS}/turns`, "post_turns", true),
  getBatch: route("GET", `${NS}/batches/{batch_id}`, "get_batch", true),
  listDeadLetters: route("GET", `${NS}/dead-letters`, "list_dead_letters", true),
  replayDeadLetter: route("POST", `${NS}/dead-letters/{dead_letter_id}/replay`, "replay_dead_letter", false),
  discardDeadLetter: route("DELETE", `${NS}/dead-letters/{dead_letter_id}`, "discard_dead_letter", true),
  listJobRuns: route("GET", `${NS}/jobs/runs`, "list_job_runs", true),
  // The read path.
  recall: route("POST", `${NS}/recall`, "recall", true),
  related: route("GET", `${NS}/nodes/{node_id}/related`, "related", true),
  chain: route("POST", `${NS}/chain`, "chain", true),
  // Tasks: the same id again creates nothing new; suspend and resume answer 409 to a repeat.
  createTask: route("POST", `${NS}/tasks`, "create_task", true),
  getTask: route("GET", `${NS}/tasks/{task_id}`, "get_task", true),
  updateTask: route("PATCH", `${NS}/tasks/{task_id}`, "update_task", true),
  suspendTask: route("POST", `${NS}/tasks/{task_id}/suspend`, "suspend_task", false),
  getTaskSuspension: route("GET", `${NS}/tasks/{task_id}/suspension`, "get_task_suspension", true),
  downloadTaskSuspension: route("GET", `${NS}/tasks/{task_id}/suspension/graphml`, "download_task_suspension", true),
  resumeTask: route("POST", `${NS}/tasks/{task_id}/resume`, "resume_task", false),
  // Keys: each create makes a new key.
  createKey: route("POST", "/v1/keys", "create_key", false),
  listKeys: route("GET", "/v1/keys", "list_keys", true),
  revokeKey: route("DELETE", "/v1/keys/{key_id}", "revoke_key", true),
  // Analytics (read-only by contract).
  cypher: route("POST", `${NS}/cypher`, "run_cypher", true),
  cypherQueries: route("GET", `${NS}/cypher/queries`, "analytics_queries", true),
  // Tools for models (some write).
  listTools: route("GET", "/v1/tools", "list_tools", true),
  runTool: route("POST", `${NS}/tools/{name}`, "run_tool", false),
  // Context management: each step counts once; a resume with the token again changes nothing.
  reportStep: route("POST", `${NS}/runs/{run_id}/steps`, "report_step", false),
  getRun: route("GET", `${NS}/runs/{run_id}`, "get_run", true),
  resumeRun: route("POST", `${NS}/runs/{run_id}/resume`, "resume_run", true),
  buildContext: route("POST", `${NS}/context`, "build_context", true),
} as const satisfies Record<string, Route>;

export type RouteName = keyof typeof ROUTES;
