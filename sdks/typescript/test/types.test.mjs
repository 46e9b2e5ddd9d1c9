// index.d.ts declares what index.js exports, and the error classes cover every code of the API.
// (No server needed.)

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import * as sdk from "../index.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const dts = readFileSync(`${root}/index.d.ts`, "utf8");

/** The body of `export class Name ... {` up to its closing brace at the start of a line. */
function classBlock(name) {
  const start = dts.search(new RegExp(`^export class ${name}\\b`, "m"));
  if (start < 0) return null;
  const open = dts.indexOf("{", start);
  // A one-line class `export class X extends Y {}`.
  if (dts.slice(open, open + 2) === "{}") return "";
  const end = dts.indexOf("\n}", open);
  return dts.slice(open + 1, end);
}

/** Methods and accessors a class itself defines (not inherited), public ones only. */
function ownMembers(cls) {
  const names = [];
  for (const name of Object.getOwnPropertyNames(cls.prototype)) {
    if (name !== "constructor" && !name.startsWith("_")) names.push(name);
  }
  for (const name of Object.getOwnPropertyNames(cls)) {
    if (!["length", "name", "prototype"].includes(name) && !name.startsWith("_") && typeof cls[name] === "function") {
      names.push(`static ${name}`);
    }
  }
  return names;
}

test("every runtime export is declared in index.d.ts", () => {
  const exported = Object.keys(sdk);
  assert.ok(exported.length > 40, `only ${exported.length} exports?`);
  const missing = exported.filter((name) => !new RegExp(`^export (class|function|const|async function) ${name}\\b`, "m").test(dts));
  assert.deepEqual(missing, []);
});

test("every declared export exists at runtime", () => {
  const declared = [...dts.matchAll(/^export (?:class|function|const) (\w+)/gm)].map((m) => m[1]);
  const absent = declared.filter((name) => !(name in sdk));
  assert.deepEqual(absent, []);
});

test("every public method and accessor of every exported class is declared in its class", () => {
  const problems = [];
  let checked = 0;
  for (const [name, value] of Object.entries(sdk)) {
    if (typeof value !== "function" || !/^class\b/.test(Function.prototype.toString.call(value)) && !(value.prototype instanceof Error)) continue;
    const block = classBlock(name);
    if (block === null) { problems.push(`${name}: no class declaration`); continue; }
    for (const member of ownMembers(value)) {
      const bare = member.replace(/^static /, "");
      const declared = new RegExp(`^\\s*(?:static |readonly )*${member.startsWith("static ") ? "static " : ""}${bare}\\??[(<:]`, "m").test(block)
        || (member.startsWith("static ") && new RegExp(`^\\s*static ${bare}\\b`, "m").test(block));
      checked++;
      if (!declared) problems.push(`${name}.${member}`);
    }
  }
  assert.ok(checked > 80, `only ${checked} members checked`);
  assert.deepEqual(problems, []);
});

test("package.json points types and exports at files that exist", () => {
  const pkg = JSON.parse(readFileSync(`${root}/package.json`, "utf8"));
  assert.equal(pkg.type, "module");
  assert.equal(pkg.types, "./index.d.ts");
  assert.equal(pkg.exports["."].types, "./index.d.ts");
  assert.deepEqual(pkg.dependencies ?? {}, {});
  assert.deepEqual(pkg.devDependencies ?? {}, {});
  for (const file of [pkg.main, pkg.types, pkg.exports["."].import]) assert.ok(existsSync(`${root}/${file}`), file);
});

const errorCodeJava = fileURLToPath(new URL("../../../app/src/main/java/dev/hearth/api/ErrorCode.java", import.meta.url));

test("one error class per code of ErrorCode.java, chosen by the envelope's code", { skip: existsSync(errorCodeJava) ? false : "ErrorCode.java is not beside this SDK" }, () => {
  const java = readFileSync(errorCodeJava, "utf8");
  const codes = [...java.matchAll(/^\s+([A-Z_]+)\((\d{3})\)[,;]/gm)].map((m) => ({ code: m[1].toLowerCase(), status: Number(m[2]) }));
  assert.ok(codes.length >= 27, `found ${codes.length} codes`);
  const seen = new Set();
  for (const { code, status } of codes) {
    const cls = sdk.ERROR_CLASSES[code];
    assert.ok(cls, `no class for ${code}`);
    assert.notEqual(cls, sdk.HearthError, code);
    assert.ok(!seen.has(cls), `${cls.name} serves two codes`);
    seen.add(cls);
    const error = sdk.errorFromResponse(status, { error: { code, message: "m", details: { a: 1 }, request_id: "r1" } });
    assert.ok(error instanceof cls && error instanceof sdk.HearthError && error instanceof Error, code);
    assert.equal(error.code, code);
    assert.equal(error.status, status);
    assert.equal(error.requestId, "r1");
    assert.deepEqual(error.details, { a: 1 });
    assert.equal(error.name, cls.name);
    assert.equal(sdk[cls.name], cls, `${cls.name} is exported`);
  }
  assert.equal(Object.keys(sdk.ERROR_CLASSES).length, codes.length, "no class for a code the server does not have");
});

test("an unknown code falls back to HearthError", () => {
  const error = sdk.errorFromResponse(418, { error: { code: "teapot", message: "short and stout", details: {}, request_id: "r2" } });
  assert.equal(error.constructor, sdk.HearthError);
  assert.equal(error.code, "teapot");
  assert.equal(error.message, "short and stout");
  assert.equal(error.status, 418);
  assert.equal(error.requestId, "r2");
});

test("an answer without an envelope is classed by its status", () => {
  const headers = new Headers({ "x-request-id": "r3", "retry-after": "7" });
  const error = sdk.errorFromResponse(502, "<html>bad gateway</html>", headers);
  assert.ok(error instanceof sdk.BadGateway);
  assert.equal(error.requestId, "r3");
  assert.equal(error.retryAfter, 7);
  assert.match(error.message, /502/);
});
