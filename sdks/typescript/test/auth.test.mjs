// Credentials: the RFC 7523 key-file exchange, the token cache, refresh before expiry, one retry on 401.

import { test } from "node:test";
import assert from "node:assert/strict";
import { createPublicKey, verify } from "node:crypto";
import { Hearth, KeyFileTokens, StaticToken, Unauthorized, InvalidGrant } from "../index.js";
import { client, recordingFetch, serverEnv } from "../testing/helpers.mjs";

const { url, keyFile } = serverEnv();

const decode = (part) => JSON.parse(Buffer.from(part, "base64url").toString("utf8"));

test("the assertion is a JWT signed with the key file's key, as RFC 7523 wants", () => {
  const tokens = new KeyFileTokens(keyFile);
  const jwt = tokens.assertion();
  const [h, p, s] = jwt.split(".");
  const header = decode(h);
  const claims = decode(p);
  const kf = tokens.keyFile;
  assert.equal(header.alg, "ES256");
  assert.equal(header.kid, kf.key_id);
  assert.equal(claims.iss, kf.subject);
  assert.equal(claims.sub, kf.subject);
  assert.equal(claims.aud, kf.audience);
  assert.equal(claims.exp - claims.iat, 60);
  assert.ok(Math.abs(claims.iat - Date.now() / 1000) < 5);
  assert.notEqual(decode(tokens.assertion().split(".")[1]).jti, claims.jti, "a new jti each time");
  const signature = Buffer.from(s, "base64url");
  assert.equal(signature.length, 64, "ES256 signatures are r || s, 64 bytes");
  const publicKey = createPublicKey(tokens.privateKey);
  assert.ok(verify("sha256", Buffer.from(`${h}.${p}`), { key: publicKey, dsaEncoding: "ieee-p1363" }, signature));
});

test("a key file is traded for a token once, and the token is reused", async () => {
  const fetch = recordingFetch();
  const h = client({ fetch });
  assert.ok(h.auth instanceof KeyFileTokens);
  const me = await h.me();
  assert.equal(me.principal.id, h.auth.keyFile.principal);
  assert.equal(me.principal.auth, "key");
  await h.me();
  await h.me();
  const tokenCalls = fetch.calls.filter((c) => c.url.endsWith("/auth/token"));
  assert.equal(tokenCalls.length, 1);
  assert.equal(tokenCalls[0].headers["content-type"], "application/x-www-form-urlencoded");
  const meCalls = fetch.calls.filter((c) => c.url.endsWith("/me"));
  assert.equal(meCalls.length, 3);
  assert.ok(meCalls.every((c) => c.headers.authorization === `Bearer ${h.auth.accessToken}`));
  // The server's token lives 15 minutes.
  const life = (h.auth.expiresAt - Date.now()) / 1000;
  assert.ok(life > 800 && life <= 900, `token life ${life}`);
});

test("a token about to expire is renewed before it is used", async () => {
  const fetch = recordingFetch();
  const h = client({ fetch });
  await h.me();
  const first = h.auth.accessToken;
  h.auth.expiresAt = Date.now() + 30_000; // inside the one-minute margin
  await h.me();
  assert.equal(fetch.calls.filter((c) => c.url.endsWith("/auth/token")).length, 2);
  assert.notEqual(h.auth.accessToken, first);
  assert.equal(fetch.calls.at(-1).headers.authorization, `Bearer ${h.auth.accessToken}`);
});

test("a token the server refuses is replaced once, and the call goes through", async () => {
  const fetch = recordingFetch();
  const h = client({ fetch });
  await h.me();
  h.auth.accessToken = "not-a-token"; // as if the server had been reset since
  const me = await h.me();
  assert.equal(me.principal.id, h.auth.keyFile.principal);
  const meCalls = fetch.calls.filter((c) => c.url.endsWith("/me"));
  assert.equal(meCalls.length, 3);
  assert.equal(meCalls[1].headers.authorization, "Bearer not-a-token");
  assert.notEqual(meCalls[2].headers.authorization, "Bearer not-a-token");
  assert.equal(fetch.calls.filter((c) => c.url.endsWith("/auth/token")).length, 2);
});

test("a fixed token the server refuses throws Unauthorized after one try", async () => {
  const fetch = recordingFetch();
  const h = new Hearth({ url, token: "garbage", fetch });
  await assert.rejects(h.me(), (e) => {
    assert.ok(e instanceof Unauthorized);
    assert.equal(e.code, "unauthenticated");
    assert.equal(e.status, 401);
    assert.match(e.requestId, /^[0-9a-z]{27}$/);
    return true;
  });
  assert.equal(fetch.calls.length, 1);
});

test("the environment is read as the CLI reads it: HEARTH_TOKEN before HEARTH_KEY_FILE", async () => {
  const viaKey = new Hearth({ env: { HEARTH_URL: url, HEARTH_KEY_FILE: keyFile } });
  assert.ok(viaKey.auth instanceof KeyFileTokens);
  assert.equal(viaKey.url, url.replace(/\/+$/, ""));
  const token = await viaKey.auth.token();
  const viaToken = new Hearth({ env: { HEARTH_URL: url, HEARTH_TOKEN: token, HEARTH_KEY_FILE: "/nonexistent" } });
  assert.ok(viaToken.auth instanceof StaticToken);
  assert.equal((await viaToken.me()).principal.id, viaKey.auth.keyFile.principal);
  // Without HEARTH_URL the key file's audience names the server.
  const noUrl = new Hearth({ env: { HEARTH_KEY_FILE: keyFile } });
  assert.equal(noUrl.url, noUrl.auth.keyFile.audience.replace(/\/+$/, ""));
});

test("a key file whose key the server does not know fails with InvalidGrant", async () => {
  const tokens = new KeyFileTokens(keyFile);
  const forged = { ...tokens.keyFile, key_id: "00000000000000000000000000a" };
  const h = new Hearth({ url, keyFile: forged });
  await assert.rejects(h.me(), (e) => e instanceof InvalidGrant && e.status === 400 && e.code === "invalid_grant");
});
