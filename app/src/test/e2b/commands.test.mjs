// Commands and terminals inside a sandbox, through E2B's SDK and Hearth's envd facade.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { CommandExitError, TimeoutError } from 'e2b'
import { eventually, sleep, withSandbox } from './support.mjs'

test('run: output, exit codes as CommandExitError, a deadline as TimeoutError, output as it comes', async () => {
  await withSandbox(async (sandbox) => {
    const result = await sandbox.commands.run('echo "a b  $((6*7))"; echo oops >&2; printf "é\\n"')
    assert.deepEqual([result.exitCode, result.stdout, result.stderr], [0, 'a b  42\né\n', 'oops\n'])
    const failed = await sandbox.commands.run('echo partial; exit 3').catch((e) => e)
    assert.ok(failed instanceof CommandExitError, String(failed))
    assert.deepEqual([failed.exitCode, failed.stdout], [3, 'partial\n'])
    const slow = await sandbox.commands.run('sleep 30', { timeoutMs: 1_000 }).catch((e) => e)
    assert.ok(slow instanceof TimeoutError, String(slow))
    const seen = []
    const times = []
    await sandbox.commands.run('for i in 1 2 3; do echo $i; sleep 0.3; done; echo e >&2', {
      onStdout: (d) => { seen.push(d); times.push(Date.now()) },
      onStderr: (d) => seen.push('err:' + d),
    })
    assert.deepEqual(seen, ['1\n', '2\n', '3\n', 'err:e\n'])
    assert.ok(times[2] - times[0] >= 400, 'each line came as it was written')
  })
})

test('commands run as user in /home/user by default; as root, in a cwd, with envs when asked', async () => {
  await withSandbox(async (sandbox) => {
    const who = await sandbox.commands.run('id -un; id -u; pwd; echo $HOME $USER; echo $SANDBOX_WIDE')
    assert.equal(who.stdout, 'user\n1000\n/home/user\n/home/user user\nwide\n')
    const root = await sandbox.commands.run('id -un; pwd; echo $HOME', { user: 'root' })
    assert.equal(root.stdout, 'root\n/root\n/root\n')
    const cwd = await sandbox.commands.run('pwd; echo $ONLY_HERE', { cwd: '/tmp', envs: { ONLY_HERE: 'here' } })
    assert.equal(cwd.stdout, '/tmp\nhere\n')
    assert.equal((await sandbox.commands.run('echo "[$ONLY_HERE]"')).stdout, '[]\n', 'per-command envs stay there')
    const sudo = await sandbox.commands.run('sudo whoami; sudo -u user whoami; echo hi | sudo tee /root/x >/dev/null; sudo cat /root/x')
    assert.equal(sudo.stdout, 'root\nuser\nhi\n')
    const denied = await sandbox.commands.run('cat /root/x').catch((e) => e)
    assert.ok(denied instanceof CommandExitError && /Permission denied/.test(denied.stderr), String(denied))
  }, { envs: { SANDBOX_WIDE: 'wide' } })
})

test('background commands: listed, reattached by pid, fed stdin until closed, killed', async () => {
  await withSandbox(async (sandbox) => {
    const sleeper = await sandbox.commands.run('sleep 3600', { background: true })
    const cat = await sandbox.commands.run('cat', { background: true, stdin: true })
    const listed = await sandbox.commands.list()
    assert.ok(listed.some((p) => p.pid === sleeper.pid && p.cmd === '/bin/bash'), JSON.stringify(listed))
    assert.ok(listed.some((p) => p.pid === cat.pid))
    await sandbox.commands.sendStdin(cat.pid, 'line one\n')
    const attached = []
    const again = await sandbox.commands.connect(cat.pid, { onStdout: (d) => attached.push(d) })
    await sandbox.commands.sendStdin(cat.pid, 'line two\n')
    await sandbox.commands.closeStdin(cat.pid)
    const result = await again.wait()
    assert.equal(result.exitCode, 0)
    assert.ok(attached.join('').includes('line two\n'), JSON.stringify(attached))
    assert.equal(await sandbox.commands.kill(sleeper.pid), true)
    await assert.rejects(sleeper.wait(), CommandExitError)
    assert.equal(await sandbox.commands.kill(sleeper.pid), false, 'a pid that ended')
    assert.equal(await sandbox.commands.kill(999_999), false)
    const none = await sandbox.commands.list()
    assert.ok(!none.some((p) => p.pid === sleeper.pid))
  })
})

test('a pty: bash in a terminal takes input, resizes, is reattached and killed', async () => {
  await withSandbox(async (sandbox) => {
    const decoder = new TextDecoder()
    let out = ''
    const pty = await sandbox.pty.create({ cols: 80, rows: 24, onData: (d) => { out += decoder.decode(d) } })
    const input = (text) => sandbox.pty.sendInput(pty.pid, new TextEncoder().encode(text))
    await input('echo tty-$((6*7)); stty size\n')
    assert.ok(await eventually(() => out.includes('tty-42') && out.includes('24 80')), out)
    await sandbox.pty.resize(pty.pid, { cols: 120, rows: 40 })
    await input('stty size\n')
    assert.ok(await eventually(() => out.includes('40 120')), out)
    await pty.disconnect()
    let later = ''
    const again = await sandbox.pty.connect(pty.pid, { onData: (d) => { later += decoder.decode(d) } })
    await input('echo back-$((1+1))\n')
    assert.ok(await eventually(() => later.includes('back-2')), later)
    assert.equal(await sandbox.pty.kill(pty.pid), true)
    const ended = await again.wait().catch((e) => e)
    assert.ok(ended instanceof CommandExitError || ended.exitCode !== 0, String(ended))
  })
})

test('getHost reaches a server inside, one bound to localhost too', async () => {
  await withSandbox(async (sandbox) => {
    await sandbox.commands.run('mkdir -p /tmp/www && echo served > /tmp/www/index.html')
    await sandbox.commands.run('cd /tmp/www && python3 -m http.server 8000 --bind 127.0.0.1 >/dev/null 2>&1 &')
    const url = `https://${sandbox.getHost(8000)}/`
    const body = await eventually(async () => {
      const res = await fetch(url).catch(() => null)
      return res && res.status === 200 ? res.text() : null
    })
    assert.equal(body, 'served\n')
    const closed = await fetch(`https://${sandbox.getHost(8001)}/`)
    assert.equal(closed.status, 502)
  })
})

test('a sandbox killed while a command streams ends the command with an error, not a hang', async () => {
  await withSandbox(async (sandbox) => {
    const running = sandbox.commands.run('sleep 3600').catch((e) => e)
    await sleep(500)
    await sandbox.kill()
    const error = await running
    assert.ok(error instanceof Error, String(error))
    assert.equal(await sandbox.isRunning(), false)
  })
})
