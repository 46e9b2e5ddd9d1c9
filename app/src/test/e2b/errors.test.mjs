// Bad inputs get the SDK's own typed errors (from E2B's {code, message}), never a 5xx.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { AuthenticationError, CommandExitError, NotFoundError, Sandbox, SandboxError, SandboxNotFoundError,
  Template, Volume } from 'e2b'
import { domain, strangerKey, withSandbox } from './support.mjs'

test('a wrong or missing key is AuthenticationError', async () => {
  await assert.rejects(Sandbox.create('base', { apiKey: 'hk_not-a-key' }), AuthenticationError)
  await assert.rejects(Sandbox.list({ apiKey: 'hk_not-a-key' }).nextItems(), AuthenticationError)
  const raw = await fetch(`https://api.${domain}/v2/sandboxes`)
  assert.equal(raw.status, 401)
  assert.deepEqual(Object.keys(await raw.json()).sort(), ['code', 'message'])
})

test("another workspace's key neither sees nor reaches the sandbox", async () => {
  await withSandbox(async (sandbox) => {
    const stranger = { apiKey: strangerKey }
    await assert.rejects(Sandbox.connect(sandbox.sandboxId, stranger), SandboxNotFoundError)
    await assert.rejects(Sandbox.getInfo(sandbox.sandboxId, stranger), SandboxNotFoundError)
    assert.equal(await Sandbox.kill(sandbox.sandboxId, stranger), false)
    const theirs = await Sandbox.list(stranger).nextItems()
    assert.ok(!theirs.some((s) => s.sandboxId === sandbox.sandboxId))
    assert.equal(await sandbox.isRunning(), true, 'untouched')
    const mine = await Sandbox.create('base', stranger)
    try {
      const token = (await mine.commands.run('echo stranger')).stdout
      assert.equal(token, 'stranger\n')
      // The stranger's envd token does not open this sandbox.
      const res = await fetch(`https://49983-${sandbox.sandboxId}.${domain}/health`, {
        headers: { 'X-Access-Token': mine.envdAccessToken ?? 'none' },
      })
      assert.ok(res.status === 204 || res.status === 401, `health needs no token: ${res.status}`)
      const rpc = await fetch(`https://49983-${sandbox.sandboxId}.${domain}/process.Process/List`, {
        method: 'POST', body: '{}',
        headers: { 'Content-Type': 'application/json', 'X-Access-Token': mine.envdAccessToken ?? 'none' },
      })
      assert.equal(rpc.status, 401)
    } finally {
      await mine.kill()
    }
  })
})

test('an unknown template is a typed error naming it', async () => {
  const error = await Sandbox.create('no-such-template').catch((e) => e)
  assert.ok(error instanceof SandboxError || error instanceof NotFoundError, String(error))
  assert.match(error.message, /no-such-template/)
  assert.ok(!/\b5\d\d\b/.test(error.message), error.message)
})

test('a killed sandbox: its commands and files fail with SDK errors', async () => {
  const sandbox = await Sandbox.create('base')
  await sandbox.kill()
  await assert.rejects(sandbox.commands.run('true'), (e) => e instanceof SandboxError || e instanceof CommandExitError)
  await assert.rejects(sandbox.files.read('/etc/hostname'), (e) => e instanceof SandboxError)
  await assert.rejects(sandbox.setTimeout(10_000), NotFoundError)
  await assert.rejects(sandbox.pause(), NotFoundError)
  await assert.rejects(sandbox.getMetrics(), NotFoundError)
})

test('what Hearth does not offer (template builds, volumes) says so in E2B shape', async () => {
  for (const [method, path] of [['GET', '/templates'], ['POST', '/v3/templates'], ['GET', '/volumes'],
    ['POST', '/volumes'], ['GET', '/secrets']]) {
    const res = await fetch(`https://api.${domain}${path}`, {
      method, headers: { 'X-API-KEY': process.env.E2B_API_KEY, 'Content-Type': 'application/json' },
      body: method === 'POST' ? '{}' : undefined,
    })
    const body = await res.json()
    assert.equal(res.status, 501, `${method} ${path}`)
    assert.equal(body.code, 501)
    assert.match(body.message, /Hearth does not offer/)
  }
  await assert.rejects(Volume.create('v'), (e) => /Hearth does not offer/.test(e.message))
  for (const opts of [{ mcp: { exa: { apiKey: 'x' } } }, { network: { denyOut: ['0.0.0.0/0'] } }]) {
    await assert.rejects(Sandbox.create('base', opts), (e) => /Hearth does not offer/.test(e.message),
      JSON.stringify(opts))
  }
  await assert.rejects(Sandbox.create('base', { lifecycle: { onTimeout: { action: 'pause', keepMemory: false } } }),
    (e) => /keepMemory: false is not offered/.test(e.message))
  await assert.rejects(Template.build(Template().fromBaseImage(), 'mine'), (e) => /Hearth does not offer/.test(e.message))
})
