// Type declarations of @hearth/sdk. The package is plain JavaScript ES modules; the public part of
// each src/NAME.js is declared by hand in types/NAME.d.ts, and this file re-exports them all, as
// index.js does the modules.

export * from "./types/errors.js";
export * from "./types/auth.js";
export * from "./types/http.js";
export * from "./types/hearth.js";
export * from "./types/common.js";
export * from "./types/operations.js";
export * from "./types/workspaces.js";
export * from "./types/computers.js";
export * from "./types/files.js";
export * from "./types/processes.js";
export * from "./types/checkpoints.js";
export * from "./types/databases.js";
export * from "./types/roles.js";
export * from "./types/variables.js";
export * from "./types/images.js";
export * from "./types/access.js";
