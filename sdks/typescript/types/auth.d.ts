// Type declarations of src/auth.js, written by hand (index.d.ts re-exports them).
// Credentials: a fixed token, or a key file traded for tokens.

export interface TokenSource {
  token(): Promise<string>;
  /** Forgets the current token; answers whether a fresh one can be had. */
  invalidate(): boolean;
}

/** A fixed access token (HEARTH_TOKEN). */
export class StaticToken implements TokenSource {
  constructor(token: string);
  accessToken: string;
  token(): Promise<string>;
  invalidate(): boolean;
}

/** The JSON of a key file. */
export interface KeyFile {
  principal: string;
  subject: string;
  key_id: string;
  audience: string;
  token_url: string;
  private_key: string | null;
}

/** Tokens for a key file: RFC 7523 assertions traded at `token_url`, kept in memory, renewed a minute before expiry. */
export class KeyFileTokens implements TokenSource {
  constructor(keyFile: string | KeyFile, options?: { fetch?: typeof fetch; refreshMarginSeconds?: number });
  static readKeyFile(path: string): KeyFile;
  keyFile: KeyFile;
  accessToken: string | null;
  /** When the access token expires, ms since the epoch. */
  expiresAt: number;
  /** How many tokens were fetched. */
  fetchCount: number;
  refreshMarginSeconds: number;
  /** A fresh signed assertion (ES256 for EC keys, RS256 for RSA). */
  assertion(): string;
  token(): Promise<string>;
  invalidate(): boolean;
  exchange(): Promise<string>;
}
