// What every file needs: the server's E2B settings, as E2bSdkTest passes them, and a sandbox per test.
import { Sandbox } from 'e2b'

export const domain = process.env.E2B_DOMAIN
/** The other form of addressing: every sandbox at the router's own address, chosen by headers. */
export const headerRouted = {
  apiUrl: process.env.HEARTH_E2B_API_URL,
  sandboxUrl: process.env.HEARTH_E2B_SANDBOX_URL,
}
/** An API key of another workspace. */
export const strangerKey = process.env.HEARTH_E2B_STRANGER_KEY

/** Runs body with a fresh `base` sandbox, killed after whatever happened. */
export async function withSandbox(body, opts = {}) {
  const sandbox = await Sandbox.create('base', { timeoutMs: 300_000, ...opts })
  try {
    return await body(sandbox)
  } finally {
    await sandbox.kill().catch(() => {})
  }
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

/** Waits up to `ms` for check() to be truthy. */
export async function eventually(check, ms = 10_000) {
  const end = Date.now() + ms
  for (;;) {
    const value = await check()
    if (value || Date.now() > end) return value
    await sleep(100)
  }
}
