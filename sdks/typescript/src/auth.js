// Credentials: a fixed access token, or a key file traded for tokens (RFC 7523), as the CLI does.

import { createPrivateKey, randomUUID, sign } from "node:crypto";
import { readFileSync } from "node:fs";
import { ConnectionError, ValidationError, errorFromResponse } from "./errors.js";

const JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer";

/** @param {Uint8Array|string} data */
function b64url(data) {
  return Buffer.from(data).toString("base64url");
}

/** A fixed access token (HEARTH_TOKEN): used as is, never refreshed. */
export class StaticToken {
  /** @param {string} token */
  constructor(token) {
    this.accessToken = token;
  }

  /** @returns {Promise<string>} */
  async token() {
    return this.accessToken;
  }

  /** A fixed token cannot be renewed. @returns {boolean} */
  invalidate() {
    return false;
  }
}

/**
 * Tokens for a private-key principal: signs an RFC 7523 assertion with the key file's private key,
 * trades it at the key file's `token_url`, keeps the access token in memory and trades again a
 * minute before it expires (or when the server refuses it).
 */
export class KeyFileTokens {
  /**
   * @param {string|object} keyFile a path to a key file, or its parsed JSON
   * @param {{fetch?: typeof fetch, refreshMarginSeconds?: number}} [options]
   */
  constructor(keyFile, options = {}) {
    /** The key file's fields (`principal`, `subject`, `key_id`, `audience`, `token_url`, `private_key`). */
    this.keyFile = typeof keyFile === "string" ? KeyFileTokens.readKeyFile(keyFile) : keyFile;
    for (const field of ["subject", "key_id", "audience", "token_url"]) {
      if (typeof this.keyFile?.[field] !== "string" || !this.keyFile[field]) {
        throw new TypeError(`the key file has no ${field}`);
      }
    }
    if (!this.keyFile.private_key) {
      throw new TypeError("the key file's private_key is empty: for a key you supplied (byok), put your PKCS#8 PEM private key there");
    }
    try {
      this.privateKey = createPrivateKey(this.keyFile.private_key);
    } catch (e) {
      throw new TypeError(`the key file's private_key is not a usable PKCS#8 PEM key: ${/** @type {Error} */ (e).message}`);
    }
    if (this.privateKey.asymmetricKeyType !== "ec" && this.privateKey.asymmetricKeyType !== "rsa") {
      throw new TypeError(`the key file's private_key is ${this.privateKey.asymmetricKeyType}; EC P-256 or RSA expected`);
    }
    this.fetch = options.fetch ?? globalThis.fetch;
    this.refreshMarginSeconds = options.refreshMarginSeconds ?? 60;
    /** @type {string|null} */
    this.accessToken = null;
    /** When the access token expires, ms since the epoch. */
    this.expiresAt = 0;
    /** How many tokens were fetched (for curiosity and tests). */
    this.fetchCount = 0;
    /** @type {Promise<string>|null} */
    this.pending = null;
  }

  /** @param {string} path */
  static readKeyFile(path) {
    let text;
    try {
      text = readFileSync(path, "utf8");
    } catch (e) {
      throw new TypeError(`cannot read key file ${path}: ${/** @type {Error} */ (e).message}`);
    }
    try {
      return JSON.parse(text);
    } catch (e) {
      throw new TypeError(`key file ${path} is not JSON: ${/** @type {Error} */ (e).message}`);
    }
  }

  /** A fresh assertion: iss = sub = subject, aud = audience, one minute of life, a unique jti. */
  assertion() {
    const ec = this.privateKey.asymmetricKeyType === "ec";
    const header = { alg: ec ? "ES256" : "RS256", kid: this.keyFile.key_id, typ: "JWT" };
    const now = Math.floor(Date.now() / 1000);
    const claims = {
      iss: this.keyFile.subject,
      sub: this.keyFile.subject,
      aud: this.keyFile.audience,
      iat: now,
      exp: now + 60,
      jti: randomUUID(),
    };
    const input = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(claims))}`;
    // JWS wants ECDSA signatures as r || s (IEEE P1363), not DER.
    const signature = sign("sha256", Buffer.from(input), ec ? { key: this.privateKey, dsaEncoding: "ieee-p1363" } : this.privateKey);
    return `${input}.${b64url(signature)}`;
  }

  /** An access token valid for at least the refresh margin. @returns {Promise<string>} */
  async token() {
    if (this.accessToken && Date.now() + this.refreshMarginSeconds * 1000 < this.expiresAt) {
      return this.accessToken;
    }
    // Concurrent callers share one exchange.
    if (!this.pending) {
      this.pending = this.exchange().finally(() => { this.pending = null; });
    }
    return this.pending;
  }

  /** Forgets the token (the server refused it); the next call trades again. @returns {boolean} */
  invalidate() {
    this.accessToken = null;
    this.expiresAt = 0;
    return true;
  }

  /** @returns {Promise<string>} */
  async exchange() {
    const body = new URLSearchParams({ grant_type: JWT_BEARER, assertion: this.assertion() });
    let response;
    let lastError;
    // A network failure is retried with a new assertion (each jti is single use).
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        response = await this.fetch(this.keyFile.token_url, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
          body: attempt === 0 ? body : new URLSearchParams({ grant_type: JWT_BEARER, assertion: this.assertion() }),
          signal: AbortSignal.timeout(30_000),
        });
        break;
      } catch (e) {
        lastError = e;
        await new Promise((r) => setTimeout(r, 250 * 2 ** attempt));
      }
    }
    if (!response) {
      throw new ConnectionError(`cannot reach ${this.keyFile.token_url}: ${/** @type {Error} */ (lastError)?.message}`, { cause: lastError });
    }
    const text = await response.text();
    let json = null;
    try { json = text ? JSON.parse(text) : null; } catch { json = text; }
    if (response.status !== 200) {
      throw errorFromResponse(response.status, json, response.headers);
    }
    if (!json || typeof json.access_token !== "string") {
      throw new ValidationError("the token endpoint answered no access_token", { status: response.status });
    }
    this.fetchCount++;
    this.accessToken = json.access_token;
    this.expiresAt = Date.now() + Number(json.expires_in ?? 900) * 1000;
    return this.accessToken;
  }
}
