// E2bBench's client: E2B's SDK (as published) beside Hearth's own /v1 through fetch, in one Node.js
// process, interleaved round by round so that both meet the same machine. Prints one JSON object of
// milliseconds. Environment: E2B_API_KEY, E2B_API_URL, E2B_SANDBOX_URL (E2bRig's), HEARTH_V1 (the
// API's base URL), HEARTH_WS (a workspace id), HEARTH_IMAGE (the image of E2B's template base).
import { randomUUID } from 'node:crypto'
import { Sandbox } from 'e2b'

const rounds = Number(process.argv[2] ?? 10)
const calls = Number(process.argv[3] ?? 100)
const { HEARTH_V1: v1, HEARTH_WS: ws, HEARTH_IMAGE: image, E2B_API_KEY: key } = process.env
// The SDK composes `/bin/bash -l -c CMD` for commands.run: /v1 runs the same, as the same user, so the
// gap is the facade's.
const BASH_TRUE = ['/bin/bash', '-l', '-c', 'true']

async function call(method, path, body) {
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' }
  if (method === 'POST' && path.endsWith('/computers')) headers['idempotency-key'] = randomUUID()
  const res = await fetch(v1 + path, { method, headers, body: body && JSON.stringify(body) })
  const json = await res.json()
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`)
  return json
}

// As the SDK runs commands: as the image's user (E2B's default), in its home.
const exec = (id, command) => call('POST', `/computers/${id}/exec`, { command, user: 'user' })
const now = () => performance.now()

async function e2bCreate() {
  const t0 = now()
  const sandbox = await Sandbox.create('base')
  await sandbox.commands.run('true')
  const ms = now() - t0
  await sandbox.kill()
  return ms
}

async function v1Create() {
  const t0 = now()
  const { computer } = await call('POST', `/workspaces/${ws}/computers`, { name: `b-${randomUUID().slice(0, 8)}`, image })
  await exec(computer.id, BASH_TRUE)
  const ms = now() - t0
  await call('DELETE', `/computers/${computer.id}`)
  return ms
}

const create = { e2b: [], v1: [] }
await e2bCreate() // unmeasured: the image's first unpack, the JIT
await v1Create()
for (let i = 0; i < rounds; i++) {
  create.e2b.push(await e2bCreate())
  create.v1.push(await v1Create())
}

const sandbox = await Sandbox.create('base')
const { computer } = await call('POST', `/workspaces/${ws}/computers`, { name: `b-${randomUUID().slice(0, 8)}`, image })
const run = { e2b: [], v1: [], v1True: [] }
for (let i = 0; i < 20; i++) { // unmeasured warm-up of both paths
  await sandbox.commands.run('true')
  await exec(computer.id, BASH_TRUE)
}
for (let i = 0; i < calls; i++) {
  let t0 = now()
  await sandbox.commands.run('true')
  run.e2b.push(now() - t0)
  t0 = now()
  await exec(computer.id, BASH_TRUE)
  run.v1.push(now() - t0)
  t0 = now()
  await exec(computer.id, ['true'])
  run.v1True.push(now() - t0)
}
await sandbox.kill()
await call('DELETE', `/computers/${computer.id}`)
console.log(JSON.stringify({ create, run }))
