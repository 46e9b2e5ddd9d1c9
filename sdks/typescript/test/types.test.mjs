// The declarations (index.d.ts and types/*.d.ts) match what index.js exports, and the error classes
// cover every code of the API.
// (No server needed.)

import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import * as sdk from "../index.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const read = (file) => readFileSync(`${root}/${file}`, "utf8");
const indexJs = read("index.js");
const indexDts = read("index.d.ts");

/** The modules a file re-exports: `export ... from "./DIR/NAME.js"` → NAME, in order. */
const reexported = (text, dir) => [...text.matchAll(new RegExp(`^export [^;]*?from "\\./${dir}/(\\w+)\\.js";`, "gms"))].map((m) => m[1]);

/** Module → the names index.js exports from it. */
const runtimeByModule = new Map([...indexJs.matchAll(/^export \{([^}]*)\} from "\.\/src\/(\w+)\.js";/gm)]
  .map((m) => [m[2], m[1].split(",").map((n) => n.trim()).filter(Boolean)]));

/** Module → the text of types/NAME.d.ts, its declarations. */
const dtsByModule = new Map(reexported(indexDts, "types").map((name) => [name, read(`types/${name}.d.ts`)]));

/** Names a declaration file declares as values (classes, functions, constants). */
const declaredValues = (dts) => [...dts.matchAll(/^export (?:class|function|const) (\w+)/gm)].map((m) => m[1]);

/** The body of `export class Name ... {` in a declaration file, up to its closing brace at the start of a line. */
function classBlock(dts, name) {
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

test("index.d.ts re-exports the declarations of every module index.js re-exports", () => {
  assert.deepEqual(reexported(indexDts, "types").sort(), [...runtimeByModule.keys()].sort());
  assert.deepEqual(reexported(indexJs, "src").sort(), [...runtimeByModule.keys()].sort());
  assert.ok(dtsByModule.size >= 10, `only ${dtsByModule.size} modules`);
  // index.d.ts itself declares nothing: each declaration is in the file named after its module.
  assert.deepEqual(declaredValues(indexDts), []);
});

test("each module's declarations are exactly what index.js exports from it", async () => {
  let names = 0;
  for (const [module, dts] of dtsByModule) {
    const runtime = runtimeByModule.get(module);
    assert.deepEqual(declaredValues(dts).sort(), [...runtime].sort(), `types/${module}.d.ts`);
    const mod = await import(`../src/${module}.js`);
    for (const name of runtime) assert.equal(sdk[name], mod[name], `${name} comes from src/${module}.js`);
    names += runtime.length;
  }
  assert.equal(names, Object.keys(sdk).length, "every runtime export is accounted for");
  assert.ok(names > 40, `only ${names} exports?`);
});

test("every public method and accessor of every exported class is declared in its class", () => {
  const problems = [];
  let checked = 0;
  for (const [module, runtime] of runtimeByModule) {
    const dts = dtsByModule.get(module);
    for (const name of runtime) {
      const value = sdk[name];
      if (typeof value !== "function" || !/^class\b/.test(Function.prototype.toString.call(value)) && !(value.prototype instanceof Error)) continue;
      const block = classBlock(dts, name);
      if (block === null) { problems.push(`${name}: no class declaration in types/${module}.d.ts`); continue; }
      for (const member of ownMembers(value)) {
        const bare = member.replace(/^static /, "");
        const declared = new RegExp(`^\\s*(?:static |readonly )*${member.startsWith("static ") ? "static " : ""}${bare}\\??[(<:]`, "m").test(block)
          || (member.startsWith("static ") && new RegExp(`^\\s*static ${bare}\\b`, "m").test(block));
        checked++;
        if (!declared) problems.push(`${name}.${member}`);
      }
    }
  }
  assert.ok(checked > 80, `only ${checked} members checked`);
  assert.deepEqual(problems, []);
});

test("declared error classes extend what the runtime classes extend", () => {
  const dts = dtsByModule.get("errors");
  let checked = 0;
  for (const name of runtimeByModule.get("errors")) {
    const value = sdk[name];
    if (typeof value !== "function" || !(value.prototype instanceof Error)) continue;
    const m = dts.match(new RegExp(`^export class ${name} extends (\\w+)`, "m"));
    assert.ok(m, `${name} declared`);
    assert.equal(m[1], Object.getPrototypeOf(value).name, name);
    checked++;
  }
  assert.ok(checked >= 29, `only ${checked} error classes`);
});

test("package.json points types and exports at files that exist, and packs every module and its declarations", () => {
  const pkg = JSON.parse(read("package.json"));
  assert.equal(pkg.type, "module");
  assert.equal(pkg.types, "./index.d.ts");
  assert.equal(pkg.exports["."].types, "./index.d.ts");
  assert.deepEqual(pkg.dependencies ?? {}, {});
  assert.deepEqual(pkg.devDependencies ?? {}, {});
  for (const file of [pkg.main, pkg.types, pkg.exports["."].import]) assert.ok(existsSync(`${root}/${file}`), file);
  const packed = (file) => pkg.files.some((entry) => entry === file || (entry.endsWith("/") && file.startsWith(entry)));
  const needed = ["index.js", "index.d.ts", "README.md"];
  for (const module of runtimeByModule.keys()) needed.push(`src/${module}.js`, `types/${module}.d.ts`);
  // Modules index.js reaches only through others (src/exec.js, ...) are packed too.
  for (const dir of ["src", "types"]) for (const file of readdirSync(`${root}/${dir}`)) needed.push(`${dir}/${file}`);
  assert.deepEqual(needed.filter((file) => !packed(file) || !existsSync(`${root}/${file}`)), []);
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
    assert.equal(error.constructor, cls, code);
    assert.ok(error instanceof sdk.HearthError && error instanceof Error, code);
    // Every 409 is a Conflict (so one catch takes them all); nothing else is.
    assert.equal(error instanceof sdk.Conflict, status === 409, `${code} instanceof Conflict`);
    assert.equal(error.code, code);
    assert.equal(error.status, status);
    assert.equal(error.requestId, "r1");
    assert.deepEqual(error.details, { a: 1 });
    assert.equal(error.name, cls.name);
    assert.equal(sdk[cls.name], cls, `${cls.name} is exported`);
  }
  assert.equal(Object.keys(sdk.ERROR_CLASSES).length, codes.length, "no class for a code the server does not have");
  assert.ok(codes.filter((c) => c.status === 409).length >= 6, "the 409 codes were found");
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
  const conflict = sdk.errorFromResponse(409, "");
  assert.equal(conflict.constructor, sdk.Conflict);
  assert.equal(conflict.code, "conflict");
  assert.equal(sdk.errorFromResponse(418, "").constructor, sdk.HearthError);
});

test("a '.' or '..' as a name or id is refused before anything is sent", async () => {
  const { enc } = await import("../src/common.js");
  for (const dots of [".", ".."]) assert.throws(() => enc(dots), /is not a name or an id/);
  assert.equal(enc("a b"), "a%20b");
  assert.equal(enc("..."), "...");
});
