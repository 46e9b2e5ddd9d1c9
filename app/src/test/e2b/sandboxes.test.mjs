// The control plane through E2B's SDK: create, info, list, lease, pause, connect, metrics, kill,
// snapshots and forks.
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { test } from 'node:test'
import { Sandbox, SandboxNotFoundError } from 'e2b'
import { domain, eventually, headerRouted, sleep, withSandbox } from './support.mjs'

test('create answers a sandbox that runs commands at once; info and list know its metadata', async () => {
  const suite = randomUUID()
  await withSandbox(async (sandbox) => {
    assert.match(sandbox.sandboxId, /^[0-9a-z]{27}$/)
    assert.equal((await sandbox.commands.run('echo ready')).stdout, 'ready\n')
    assert.equal(await sandbox.isRunning(), true)
    const info = await sandbox.getInfo()
    assert.equal(info.sandboxId, sandbox.sandboxId)
    assert.equal(info.templateId, 'base')
    assert.equal(info.state, 'running')
    assert.deepEqual(info.metadata, { suite, who: 'hearth' })
    assert.ok(info.endAt instanceof Date && info.endAt > info.startedAt)
    const listed = await Sandbox.list({ query: { metadata: { suite } } }).nextItems()
    assert.deepEqual(listed.map((s) => s.sandboxId), [sandbox.sandboxId])
    const none = await Sandbox.list({ query: { metadata: { suite: 'no-such-suite' } } }).nextItems()
    assert.deepEqual(none, [])
  }, { metadata: { suite, who: 'hearth' } })
})

test('the older v1 create path answers the same sandbox shape', async () => {
  const res = await fetch(`https://api.${domain}/sandboxes`, {
    method: 'POST',
    headers: { 'X-API-KEY': process.env.E2B_API_KEY, 'Content-Type': 'application/json' },
    body: JSON.stringify({ templateID: 'base', timeout: 60 }),
  })
  const body = await res.json()
  assert.equal(res.status, 201, JSON.stringify(body))
  assert.match(body.sandboxID, /^[0-9a-z]{27}$/)
  assert.equal(body.templateID, 'base')
  assert.match(body.envdVersion, /^\d+\.\d+\.\d+$/)
  assert.ok(body.envdAccessToken)
  assert.equal(await Sandbox.kill(body.sandboxID), true)
})

test('list pages with limit and the next token, and filters by state', async () => {
  const suite = randomUUID()
  const a = await Sandbox.create('base', { metadata: { suite } })
  const b = await Sandbox.create('base', { metadata: { suite } })
  try {
    const pages = Sandbox.list({ query: { metadata: { suite } }, limit: 1 })
    const first = await pages.nextItems()
    assert.equal(first.length, 1)
    assert.equal(pages.hasNext, true)
    const second = await pages.nextItems()
    assert.equal(second.length, 1)
    assert.deepEqual([...first, ...second].map((s) => s.sandboxId).sort(), [a.sandboxId, b.sandboxId].sort())
    assert.equal(await b.pause(), true)
    const paused = await Sandbox.list({ query: { metadata: { suite }, state: ['paused'] } }).nextItems()
    assert.deepEqual(paused.map((s) => [s.sandboxId, s.state]), [[b.sandboxId, 'paused']])
    const running = await Sandbox.list({ query: { metadata: { suite }, state: ['running'] } }).nextItems()
    assert.deepEqual(running.map((s) => s.sandboxId), [a.sandboxId])
  } finally {
    await a.kill()
    await b.kill()
  }
})

test('a second kill answers false, and a killed sandbox is gone from list, info and its hosts', async () => {
  const sandbox = await Sandbox.create('base')
  assert.equal(await sandbox.kill(), true)
  assert.equal(await sandbox.kill(), false)
  assert.equal(await Sandbox.kill(sandbox.sandboxId), false)
  assert.equal(await sandbox.isRunning(), false)
  await assert.rejects(Sandbox.getInfo(sandbox.sandboxId), SandboxNotFoundError)
  await assert.rejects(Sandbox.connect(sandbox.sandboxId), SandboxNotFoundError)
  const host = await fetch(`https://${sandbox.getHost(8000)}/`)
  assert.equal(host.status, 502)
  assert.equal((await host.json()).code, 502)
})

test('setTimeout is a lease: the sandbox is killed when it runs out; connect extends it and never shortens it', async () => {
  await withSandbox(async (sandbox) => {
    const before = (await sandbox.getInfo()).endAt
    await Sandbox.connect(sandbox.sandboxId, { timeoutMs: 10_000 })
    assert.equal((await sandbox.getInfo()).endAt.getTime(), before.getTime(), 'connect never shortens')
    await Sandbox.connect(sandbox.sandboxId, { timeoutMs: 900_000 })
    assert.ok((await sandbox.getInfo()).endAt > before, 'connect extends')
    await sandbox.setTimeout(3_000)
    const end = (await sandbox.getInfo()).endAt
    assert.ok(end.getTime() - Date.now() <= 3_500, `${end.toISOString()} is about 3 s away`)
    assert.equal(await eventually(async () => !(await sandbox.isRunning()), 15_000), true)
    await assert.rejects(Sandbox.getInfo(sandbox.sandboxId), SandboxNotFoundError)
  }, { timeoutMs: 300_000 })
})

test('pause keeps memory: processes, files and environment are there after connect', async () => {
  await withSandbox(async (sandbox) => {
    const sleeper = await sandbox.commands.run('sleep 3600', { background: true })
    await sandbox.files.write('kept.txt', 'kept')
    assert.equal(await sandbox.pause(), true)
    assert.equal(await sandbox.isRunning(), false, '/health answers 502 while paused (no wake)')
    assert.equal((await sandbox.getInfo()).state, 'paused')
    const again = await Sandbox.connect(sandbox.sandboxId)
    assert.equal(await again.isRunning(), true)
    assert.equal(await again.files.read('kept.txt'), 'kept')
    const pids = (await again.commands.list()).map((p) => p.pid)
    assert.ok(pids.includes(sleeper.pid), `${sleeper.pid} in ${pids}`)
  })
})

test('metrics: cpu, memory and disk samples of the sandbox', async () => {
  await withSandbox(async (sandbox) => {
    const metrics = await eventually(async () => {
      const m = await sandbox.getMetrics()
      return m.length > 0 ? m : null
    }, 15_000)
    assert.ok(metrics, 'a sample within 15 s')
    const last = metrics.at(-1)
    assert.ok(last.timestamp instanceof Date)
    assert.ok(last.memTotal > 0 && last.memUsed > 0 && last.memUsed <= last.memTotal, JSON.stringify(last))
    assert.ok(last.diskTotal > 0, JSON.stringify(last))
    assert.ok(last.cpuCount >= 1)
    const past = await sandbox.getMetrics({ start: new Date(Date.now() - 3_600_000), end: new Date(Date.now() - 3_500_000) })
    assert.deepEqual(past, [])
  })
})

test('snapshots: a sandbox made from one has its files; they are listed and deleted once', async () => {
  await withSandbox(async (sandbox) => {
    await sandbox.files.write('/home/user/snap.txt', 'in the snapshot')
    const snapshot = await sandbox.createSnapshot()
    assert.ok(snapshot.snapshotId)
    const listed = await Sandbox.listSnapshots({ sandboxId: sandbox.sandboxId }).nextItems()
    assert.deepEqual(listed.map((s) => s.snapshotId), [snapshot.snapshotId])
    for (let i = 0; i < 2; i++) {
      const copy = await Sandbox.create(snapshot.snapshotId)
      try {
        assert.equal(await copy.files.read('/home/user/snap.txt'), 'in the snapshot')
      } finally {
        await copy.kill()
      }
    }
    await sandbox.kill()
    const afterKill = await Sandbox.listSnapshots().nextItems()
    assert.ok(afterKill.some((s) => s.snapshotId === snapshot.snapshotId), 'a snapshot outlives its sandbox')
    assert.equal(await Sandbox.deleteSnapshot(snapshot.snapshotId), true)
    assert.equal(await Sandbox.deleteSnapshot(snapshot.snapshotId), false)
  })
})

test('fork makes running copies with the memory of the original', async () => {
  await withSandbox(async (sandbox) => {
    await sandbox.commands.run('echo forked > /tmp/f')
    const forks = await sandbox.fork({ count: 2 })
    try {
      assert.equal(forks.length, 2)
      for (const fork of forks) {
        assert.ok(!(fork instanceof Error), String(fork))
        assert.notEqual(fork.sandboxId, sandbox.sandboxId)
        assert.equal((await fork.commands.run('cat /tmp/f')).stdout, 'forked\n')
      }
    } finally {
      for (const fork of forks) if (!(fork instanceof Error)) await fork.kill()
    }
    await sandbox.kill()
    await assert.rejects(Sandbox.fork(sandbox.sandboxId), SandboxNotFoundError)
  })
})

test('every sandbox is reached at the router address too, by E2b-Sandbox-Id and E2b-Sandbox-Port', async () => {
  const sandbox = await Sandbox.create('base', headerRouted)
  try {
    assert.equal((await sandbox.commands.run('echo routed', headerRouted)).stdout, 'routed\n')
    await sandbox.commands.run('python3 -m http.server 8000 --bind 127.0.0.1 >/dev/null 2>&1 &')
    const page = await eventually(async () => {
      const res = await fetch(headerRouted.sandboxUrl + '/', {
        headers: { 'E2b-Sandbox-Id': sandbox.sandboxId, 'E2b-Sandbox-Port': '8000' },
      }).catch(() => null)
      return res && res.status === 200 ? res.text() : null
    })
    assert.match(page ?? '', /Directory listing/)
  } finally {
    await sandbox.kill()
  }
})
