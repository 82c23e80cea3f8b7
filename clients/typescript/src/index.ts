/** @hippograph/client: the TypeScript client of the Hippograph API. */

export * from "./client.js";
export * from "./errors.js";
export * from "./retry.js";
export * from "./routes.js";
export type { components, operations, paths } from "./schema.js";
