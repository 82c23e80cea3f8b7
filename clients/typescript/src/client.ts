/**
 * The Hippograph client: one method per route (`ROUTES`), bodies and answers typed by the types
 * generated from the OpenAPI document (`schema.ts`), errors as the Python client's classes, idempotent
 * calls retried on 503 and on a failed connection (`RetryPolicy`).
 *
 *     const hg = new Hippograph("http://127.0.0.1:8000", { apiKey: "hg_..." });
 *     await hg.saveMemory({ type: "Knowledge", label: "Home", content: "Ann moved to Lisbon" });
 *     const { items } = await hg.recall({ query: "Where does Ann live?", top_k: 5 });
 *
 * Namespaced methods take `{ namespace }` last; without it, the client's `namespace`, else the one
 * namespace the key is bound to (looked up once with `GET /v1/namespaces`).
 */

import { ConnectionFailed, errorFromResponse, HippographError } from "./errors.js";
import { RetryPolicy } from "./retry.js";
import { ROUTES, type Route } from "./routes.js";
import type { components, operations } from "./schema.js";

export type Schemas = components["schemas"];
type Op = keyof operations;
type JsonContent<X> = X extends { content: { "application/json": infer B } } ? B : never;
/** The JSON body an operation takes. */
export type BodyOf<O extends Op> = JsonContent<NonNullable<operations[O]["requestBody"]>>;
/** Its query parameters. */
export type QueryOf<O extends Op> = NonNullable<operations[O]["parameters"]["query"]>;
type SuccessStatus = 200 | 201 | 202;
/** What it answers on success (the union of its 2xx bodies). */
export type AnswerOf<O extends Op> = {
  [S in keyof operations[O]["responses"] & SuccessStatus]: JsonContent<operations[O]["responses"][S]>;
}[keyof operations[O]["responses"] & SuccessStatus];

export const DEFAULT_URL = "http://127.0.0.1:8000";
/** Longer than a `wait` on the write tracks (app/api/turns.py: 600 s), as the Python client. */
export const DEFAULT_TIMEOUT_MS = 660_000;

export interface ClientOptions {
  apiKey?: string;
  namespace?: string;
  timeoutMs?: number;
  retry?: RetryPolicy;
  /** A fetch of your own (a proxy agent, instrumentation); default the global fetch. */
  fetch?: typeof fetch;
}

export interface On {
  /** The namespace of this call (default: the client's, else the key's). */
  namespace?: string;
}

type QueryValue = string | number | boolean | Date | null | undefined;
type Read = "json" | "text" | "bytes" | "none";

interface Call {
  pathParams?: Record<string, string>;
  on?: On;
  query?: object;
  json?: unknown;
  content?: Uint8Array | string;
  headers?: Record<string, string>;
  read?: Read;
}

const IMPORT_MEDIA_TYPES = { json: "application/json", graphml: "application/graphml+xml" } as const;
export type ExportFormat = keyof typeof IMPORT_MEDIA_TYPES;

/** Query parameters as the Python client sends them: a list repeats the parameter, booleans are
 * `true`/`false`, dates ISO 8601, null and undefined left out. */
export function queryString(fields: object | undefined): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(fields ?? {})) {
    for (const item of (Array.isArray(value) ? value : [value]) as QueryValue[]) {
      if (item === null || item === undefined) continue;
      params.append(name, item instanceof Date ? item.toISOString() : String(item));
    }
  }
  const text = params.toString();
  return text ? `?${text}` : "";
}

const sleep = (seconds: number) => new Promise((resolve) => setTimeout(resolve, seconds * 1000));

export class Hippograph {
  readonly baseUrl: string;
  namespace: string | undefined;
  readonly retry: RetryPolicy;
  readonly timeoutMs: number;
  private readonly headers: Record<string, string>;
  private readonly fetchImpl: typeof fetch;

  constructor(baseUrl: string = DEFAULT_URL, options: ClientOptions = {}) {
    this.baseUrl = baseUrl.replace(/\/+$/, "");
    this.namespace = options.namespace;
    this.retry = options.retry ?? new RetryPolicy();
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.headers = options.apiKey ? { Authorization: `Bearer ${options.apiKey}` } : {};
    this.fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
  }

  /** The namespace a call works on: the one given, the client's, else the only one the key sees. */
  async namespaceFor(on?: On): Promise<string> {
    if (on?.namespace) return on.namespace;
    if (this.namespace) return this.namespace;
    const identity = await this.whoAmI();  // the key's own namespace, as the Python client asks it
    if (!identity.namespace) {
      throw new Error("namespace: this key (the bootstrap admin) holds every namespace; name one");
    }
    this.namespace = identity.namespace;
    return identity.namespace;
  }


  /** Sends one call of `route`, retried by the policy when the route is idempotent. */
  async send<T>(route: Route, call: Call = {}): Promise<T> {
    const values: Record<string, string> = { ...call.pathParams };
    if (route.path.includes("{ns}")) values["ns"] = await this.namespaceFor(call.on);
    const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(values[name] ?? ""));
    const url = this.baseUrl + path + queryString(call.query);
    const headers: Record<string, string> = { ...this.headers, ...call.headers };
    let body: BodyInit | undefined;
    if (call.content !== undefined) {
      body = call.content as BodyInit;
    } else if (call.json !== undefined) {
      body = JSON.stringify(call.json);
      headers["Content-Type"] = "application/json";
    }
    for (let attempt = 0; ; attempt++) {
      try {
        let response: Response;
        let content: Uint8Array;
        try {
          response = await this.fetchImpl(url, {
            method: route.method, headers, body, signal: AbortSignal.timeout(this.timeoutMs),
          });
          content = new Uint8Array(await response.arrayBuffer());
        } catch (cause) {
          throw new ConnectionFailed(`${route.method} ${this.baseUrl}: ${describe(cause)}`, { cause });
        }
        if (!response.ok) throw errorFromResponse(response.status, response.headers, content, response.statusText);
        return read(call.read ?? "json", content) as T;
      } catch (error) {
        if (!(error instanceof HippographError) || !this.retry.shouldRetry(error, attempt, route.idempotent)) {
          throw error;
        }
        await sleep(this.retry.delay(attempt, error.retryAfter));
      }
    }
  }

  // Probes and metrics (no key needed).

  /** The process is up. */
  healthz(): Promise<AnswerOf<"healthz">> {
    return this.send(ROUTES.healthz);
  }
  /** Every engine answers; throws `NotReady` (503) naming what is down. */
  readyz(): Promise<AnswerOf<"readyz">> {
    return this.send(ROUTES.readyz);
  }
  /** The Prometheus text exposition. */
  metrics(): Promise<string> {
    return this.send(ROUTES.metrics, { read: "text" });
  }

  // Namespaces.

  /** The namespaces this key may see. */
  listNamespaces(): Promise<AnswerOf<"list_namespaces">> {
    return this.send(ROUTES.listNamespaces);
  }
  /** Create a namespace (bootstrap admin key) or update its settings (admin of it). */
  putNamespace(settings?: BodyOf<"put_namespace">, on?: On): Promise<AnswerOf<"put_namespace">> {
    const given = settings && Object.keys(settings).length ? settings : undefined;
    return this.send(ROUTES.putNamespace, { on, json: given });
  }
  /** The namespace's settings and node counts per type. */
  getNamespace(on?: On): Promise<AnswerOf<"get_namespace">> {
    return this.send(ROUTES.getNamespace, { on });
  }
  /** Erase the namespace (graph, vectors, hot state) and revoke its keys. */
  deleteNamespace(on?: On): Promise<AnswerOf<"delete_namespace">> {
    return this.send(ROUTES.deleteNamespace, { on });
  }

  // Memories, links, nodes.

  /** Save a memory of one of the nine types (the same memory again changes nothing). */
  saveMemory(memory: BodyOf<"save_memory">, on?: On): Promise<AnswerOf<"save_memory">> {
    return this.send(ROUTES.saveMemory, { on, json: memory });
  }
  /** One page of the namespace's memories, newest first, filtered; `next_cursor` asks for the next. */
  listMemories(filters?: QueryOf<"list_memories">, on?: On): Promise<AnswerOf<"list_memories">> {
    return this.send(ROUTES.listMemories, { on, query: filters });
  }
  /** Every memory `listMemories` would list with these filters, page after page. */
  async *iterMemories(filters: Omit<QueryOf<"list_memories">, "cursor"> = {}, on?: On):
    AsyncGenerator<AnswerOf<"list_memories">["items"][number]> {
    let cursor: string | null | undefined;
    do {
      const page = await this.listMemories({ ...filters, cursor }, on);
      yield* page.items;
      cursor = page.next_cursor;
    } while (cursor);
  }
  /** Add a relationship between two nodes (an existing one answers unchanged). */
  addLink(link: BodyOf<"add_link">, on?: On): Promise<AnswerOf<"add_link">> {
    return this.send(ROUTES.addLink, { on, json: link });
  }
  /** A node with its full content, tags and relationships. */
  getNode(nodeId: string, on?: On): Promise<AnswerOf<"get_node">> {
    return this.send(ROUTES.getNode, { on, pathParams: { node_id: nodeId } });
  }
  /** A node's projected activation over the next `days`, with the soft-forget threshold. */
  projectDecay(nodeId: string, query?: QueryOf<"project_decay">, on?: On): Promise<AnswerOf<"project_decay">> {
    return this.send(ROUTES.projectDecay, { on, pathParams: { node_id: nodeId }, query });
  }
  /** Raise a node's importance (never lower) and/or replace its tags. */
  patchNode(nodeId: string, change: BodyOf<"patch_node">, on?: On): Promise<AnswerOf<"patch_node">> {
    return this.send(ROUTES.patchNode, { on, pathParams: { node_id: nodeId }, json: change });
  }
  /** Forget a node: it, its relationships and its vector are erased. */
  async forgetNode(nodeId: string, on?: On): Promise<void> {
    await this.send(ROUTES.forgetNode, { on, pathParams: { node_id: nodeId }, read: "none" });
  }

  /** Merge two entity nodes into one (admin); the merged id answers the survivor from then on. */
  mergeEntities(merge: BodyOf<"merge_entities">, on?: On): Promise<AnswerOf<"merge_entities">> {
    return this.send(ROUTES.mergeEntities, { on, json: merge });
  }
  /** Undo a merge from its record (admin). */
  splitEntities(split: BodyOf<"split_entities">, on?: On): Promise<AnswerOf<"split_entities">> {
    return this.send(ROUTES.splitEntities, { on, json: split });
  }
  /** Forget what the filter names and what derived from it alone; `dry_run` only counts. */
  forget(filter: BodyOf<"forget">, on?: On): Promise<AnswerOf<"forget">> {
    return this.send(ROUTES.forget, { on, json: filter });
  }
  /** The namespace's forgetting records, newest first (admin). */
  forgetAudit(query?: QueryOf<"forget_audit">, on?: On): Promise<AnswerOf<"forget_audit">> {
    return this.send(ROUTES.forgetAudit, { on, query });
  }

  // Export and import.

  /** Every node and relationship of the namespace, as JSON or GraphML bytes. */
  exportNamespace(format: ExportFormat = "json", on?: On): Promise<Uint8Array> {
    return this.send(ROUTES.exportNamespace, { on, query: { format }, read: "bytes" });
  }
  /** Load an export into an existing, empty namespace (all or nothing). */
  importNamespace(data: Uint8Array | string, format: ExportFormat = "json", on?: On):
    Promise<AnswerOf<"import_namespace">> {
    return this.send(ROUTES.importNamespace, {
      on, query: { format }, content: data, headers: { "Content-Type": IMPORT_MEDIA_TYPES[format] },
    });
  }

  // The write path.

  /** Conversation turns: 202 with a batch id, or with `wait` once every write track has run. */
  postTurns(batch: BodyOf<"post_turns">, on?: On): Promise<AnswerOf<"post_turns">> {
    return this.send(ROUTES.postTurns, { on, json: batch });
  }
  /** What became of a batch of turns: queued, running, done (with its report) or failed (with why). */
  getBatch(batchId: string, on?: On): Promise<AnswerOf<"get_batch">> {
    return this.send(ROUTES.getBatch, { on, pathParams: { batch_id: batchId } });
  }
  /** The turns the write tracks could not write (admin). */
  listDeadLetters(on?: On): Promise<AnswerOf<"list_dead_letters">> {
    return this.send(ROUTES.listDeadLetters, { on });
  }
  /** Queue a dead letter's turn again (after a fix). */
  replayDeadLetter(deadLetterId: string, on?: On): Promise<AnswerOf<"replay_dead_letter">> {
    return this.send(ROUTES.replayDeadLetter, { on, pathParams: { dead_letter_id: deadLetterId } });
  }
  /** Drop a dead letter for good. */
  async discardDeadLetter(deadLetterId: string, on?: On): Promise<void> {
    await this.send(ROUTES.discardDeadLetter, { on, pathParams: { dead_letter_id: deadLetterId }, read: "none" });
  }
  /** The background jobs' recent runs on the namespace, newest first. */
  listJobRuns(query?: QueryOf<"list_job_runs">, on?: On): Promise<AnswerOf<"list_job_runs">> {
    return this.send(ROUTES.listJobRuns, { on, query });
  }

  // The read path.

  /** Memory cards for a query, best first. */
  recall(request: BodyOf<"recall">, on?: On): Promise<AnswerOf<"recall">> {
    return this.send(ROUTES.recall, { on, json: request });
  }
  /** A node's neighbourhood, nearest and strongest first. */
  related(nodeId: string, query?: QueryOf<"related">, on?: On): Promise<AnswerOf<"related">> {
    return this.send(ROUTES.related, { on, pathParams: { node_id: nodeId }, query });
  }
  /** `from_id` + `to_id`: the shortest path between two nodes; `task_id`: the task's chain. */
  chain(request: BodyOf<"chain">, on?: On): Promise<AnswerOf<"chain">> {
    return this.send(ROUTES.chain, { on, json: request });
  }

  // Tasks.

  /** Create a task, optionally under `parent_id`, waiting for `depends_on`, about `related_ids`. */
  createTask(task: BodyOf<"create_task">, on?: On): Promise<AnswerOf<"create_task">> {
    return this.send(ROUTES.createTask, { on, json: task });
  }
  /** The task tree: the task with its subtasks, dependencies and statuses. */
  getTask(taskId: string, query?: QueryOf<"get_task">, on?: On): Promise<AnswerOf<"get_task">> {
    return this.send(ROUTES.getTask, { on, pathParams: { task_id: taskId }, query });
  }
  /** Change a task (a status change must be a valid transition; `parent_id: null` moves it to the top). */
  updateTask(taskId: string, change: BodyOf<"update_task">, on?: On): Promise<AnswerOf<"update_task">> {
    return this.send(ROUTES.updateTask, { on, pathParams: { task_id: taskId }, json: change });
  }
  /** Suspend the task tree: its tree and its memories' activations are written to files. */
  suspendTask(taskId: string, on?: On): Promise<AnswerOf<"suspend_task">> {
    return this.send(ROUTES.suspendTask, { on, pathParams: { task_id: taskId } });
  }
  /** The task's last suspension. */
  getTaskSuspension(taskId: string, on?: On): Promise<AnswerOf<"get_task_suspension">> {
    return this.send(ROUTES.getTaskSuspension, { on, pathParams: { task_id: taskId } });
  }
  /** The activation state the task's last suspension saved, as GraphML bytes. */
  downloadTaskSuspension(taskId: string, on?: On): Promise<Uint8Array> {
    return this.send(ROUTES.downloadTaskSuspension, { on, pathParams: { task_id: taskId }, read: "bytes" });
  }
  /** Resume a suspended task tree; answers the context to continue with. */
  resumeTask(taskId: string, options?: BodyOf<"resume_task">, on?: On): Promise<AnswerOf<"resume_task">> {
    const given = options && Object.keys(options).length ? options : undefined;
    return this.send(ROUTES.resumeTask, { on, pathParams: { task_id: taskId }, json: given });
  }

  // Keys.

  /** A new key with one role on one namespace; its secret (`key`) is shown this once. */
  createKey(key: BodyOf<"create_key">): Promise<AnswerOf<"create_key">> {
    return this.send(ROUTES.createKey, { json: key });
  }
  /** The keys this key may see, never their secrets. */
  listKeys(): Promise<AnswerOf<"list_keys">> {
    return this.send(ROUTES.listKeys);
  }
  /** Revoke a key. */
  revokeKey(keyId: string): Promise<AnswerOf<"revoke_key">> {
    return this.send(ROUTES.revokeKey, { pathParams: { key_id: keyId } });
  }

  // Analytics.

  /** A read-only Cypher `query` (use `$namespace`) or the named analytics query `name`. */
  cypher(request: BodyOf<"run_cypher">, on?: On): Promise<AnswerOf<"run_cypher">> {
    return this.send(ROUTES.cypher, { on, json: request });
  }
  /** The named analytics queries with their parameters. */
  cypherQueries(on?: On): Promise<AnswerOf<"analytics_queries">> {
    return this.send(ROUTES.cypherQueries, { on });
  }

  // Tools for models.

  /** The tools as OpenAI function-calling schemas. */
  /** Who this key is: its id, role, namespace and agent (`GET /v1/me`). */
  whoAmI(): Promise<AnswerOf<"who_am_i">> {
    return this.send(ROUTES.whoAmI);
  }
  listTools(): Promise<AnswerOf<"list_tools">> {
    return this.send(ROUTES.listTools);
  }
  /** Run a tool with its arguments; answers `{tool, result}`. */
  runTool(name: string, args: Record<string, unknown> = {}, on?: On): Promise<AnswerOf<"run_tool">> {
    return this.send(ROUTES.runTool, { on, pathParams: { name }, json: { arguments: args } });
  }

  // Context management: the circuit breaker and the context builder.

  /** Report one step of a run: GREEN, YELLOW (`warning`) or RED (`stop`, with a `resume_token`). */
  reportStep(runId: string, step: BodyOf<"report_step">, on?: On): Promise<AnswerOf<"report_step">> {
    return this.send(ROUTES.reportStep, { on, pathParams: { run_id: runId }, json: step });
  }
  /** A run's circuit-breaker state. */
  getRun(runId: string, query?: QueryOf<"get_run">, on?: On): Promise<AnswerOf<"get_run">> {
    return this.send(ROUTES.getRun, { on, pathParams: { run_id: runId }, query });
  }
  /** Resume a stopped (RED) run with its token. */
  resumeRun(runId: string, request: BodyOf<"resume_run">, on?: On): Promise<AnswerOf<"resume_run">> {
    return this.send(ROUTES.resumeRun, { on, pathParams: { run_id: runId }, json: request });
  }
  /** The minimum sufficient context for `goal` (or `query`) within `token_budget` tokens. */
  buildContext(request: BodyOf<"build_context">, on?: On): Promise<AnswerOf<"build_context">> {
    return this.send(ROUTES.buildContext, { on, json: request });
  }
}

function read(how: Read, content: Uint8Array): unknown {
  if (how === "bytes") return content;
  if (how === "none") return undefined;
  const text = new TextDecoder().decode(content);
  return how === "text" ? text : JSON.parse(text);
}

function describe(cause: unknown): string {
  if (cause instanceof Error) {
    const inner = (cause as Error & { cause?: unknown }).cause;
    return inner instanceof Error ? `${cause.name}: ${cause.message} (${inner.message})` : `${cause.name}: ${cause.message}`;
  }
  return String(cause);
}
