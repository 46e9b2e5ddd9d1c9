// Files inside a sandbox through E2B's SDK: reads and writes of every form, listing, stat, moves,
// watches and signed URLs.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { FileNotFoundError, FileType, InvalidArgumentError, Sandbox } from 'e2b'
import { eventually, sleep, withSandbox } from './support.mjs'

test('write and read text, bytes, blobs and streams; multipart, octet-stream and gzip', async () => {
  await withSandbox(async (sandbox) => {
    const info = await sandbox.files.write('notes/a.txt', 'hello\n')
    assert.deepEqual([info.path, info.name, info.type], ['/home/user/notes/a.txt', 'a.txt', FileType.FILE])
    assert.equal(await sandbox.files.read('notes/a.txt'), 'hello\n')
    assert.equal(await sandbox.files.read('/home/user/notes/a.txt'), 'hello\n')
    assert.equal(await sandbox.files.read('~/notes/a.txt'), 'hello\n')
    const bytes = new Uint8Array(300_000).map((_, i) => i % 251)
    await sandbox.files.write('bin', bytes.buffer)
    assert.deepEqual(await sandbox.files.read('bin', { format: 'bytes' }), bytes)
    assert.equal((await (await sandbox.files.read('bin', { format: 'blob' })).arrayBuffer()).byteLength, 300_000)
    const stream = await sandbox.files.read('notes/a.txt', { format: 'stream' })
    assert.equal(await new Response(stream).text(), 'hello\n')
    await sandbox.files.write('octet.txt', 'as octets', { useOctetStream: true })
    await sandbox.files.write('gzipped.txt', 'x'.repeat(100_000), { gzip: true })
    await sandbox.files.write('streamed.txt', new Blob(['from a stream']).stream())
    assert.equal(await sandbox.files.read('octet.txt'), 'as octets')
    assert.equal((await sandbox.files.read('gzipped.txt', { gzip: true })).length, 100_000)
    assert.equal(await sandbox.files.read('streamed.txt'), 'from a stream')
    const many = await sandbox.files.write([
      { path: 'm/one.txt', data: 'one' },
      { path: '/tmp/two.txt', data: new TextEncoder().encode('two') },
    ])
    assert.deepEqual(many.map((w) => w.path), ['/home/user/m/one.txt', '/tmp/two.txt'])
    assert.equal(await sandbox.files.read('/tmp/two.txt'), 'two')
    assert.equal(await sandbox.files.write('empty.txt', '').then(() => sandbox.files.read('empty.txt')), '')
    const owner = await sandbox.commands.run('stat -c "%U %a" notes/a.txt notes /tmp/two.txt')
    assert.equal(owner.stdout, 'user 644\nuser 755\nuser 644\n', 'written as the user')
    await sandbox.files.write('/root/as-root.txt', 'root', { user: 'root' })
    assert.equal((await sandbox.commands.run('sudo stat -c %U /root/as-root.txt')).stdout, 'root\n')
  })
})

test('list with depth, exists, getInfo, makeDir, rename and remove', async () => {
  await withSandbox(async (sandbox) => {
    await sandbox.commands.run('mkdir -p t/a/b && echo 1 > t/one && echo 2 > t/a/two && echo 3 > t/a/b/three && ln -s one t/link')
    const flat = await sandbox.files.list('t')
    assert.deepEqual(flat.map((e) => [e.name, e.type]), [['a', 'dir'], ['link', 'symlink'], ['one', 'file']])
    const deep = await sandbox.files.list('t', { depth: 3 })
    assert.deepEqual(deep.map((e) => e.path), ['/home/user/t/a', '/home/user/t/a/b', '/home/user/t/a/b/three',
      '/home/user/t/a/two', '/home/user/t/link', '/home/user/t/one'])
    const link = flat.find((e) => e.name === 'link')
    assert.equal(link.symlinkTarget, '/home/user/t/one')
    const info = await sandbox.files.getInfo('t/one')
    assert.deepEqual([info.name, info.type, info.size, info.owner, info.group, info.permissions],
      ['one', 'file', 2, 'user', 'user', '-rw-r--r--'])
    assert.ok(info.modifiedTime instanceof Date)
    assert.equal((await sandbox.files.getInfo('t/a')).permissions, 'drwxr-xr-x')
    assert.equal(await sandbox.files.exists('t/one'), true)
    assert.equal(await sandbox.files.exists('t/none'), false)
    assert.equal(await sandbox.files.makeDir('t/new/deeper'), true)
    assert.equal(await sandbox.files.makeDir('t/new/deeper'), false, 'false when it is there')
    const moved = await sandbox.files.rename('t/one', 't/new/uno')
    assert.equal(moved.path, '/home/user/t/new/uno')
    assert.equal(await sandbox.files.read('t/new/uno'), '1\n')
    await sandbox.files.remove('t/a')
    assert.equal(await sandbox.files.exists('t/a'), false)
    await assert.rejects(sandbox.files.read('t/none'), FileNotFoundError)
    await assert.rejects(sandbox.files.getInfo('t/none'), FileNotFoundError)
    await assert.rejects(sandbox.files.list('t/none'), FileNotFoundError)
    await assert.rejects(sandbox.files.read('~root/x'), InvalidArgumentError)
  })
})

test('watchDir reports creates, writes, removes and renames, recursively when asked', async () => {
  await withSandbox(async (sandbox) => {
    await sandbox.files.makeDir('w')
    const events = []
    const watch = await sandbox.files.watchDir('w', (e) => events.push(`${e.type} ${e.name}`), { recursive: true })
    await sandbox.files.write('w/f.txt', 'x')
    await sandbox.commands.run('mkdir -p w/sub && echo y > w/sub/g && mv w/f.txt w/h.txt && rm w/h.txt')
    const all = ['create f.txt', 'write f.txt', 'create sub', 'create sub/g', 'write sub/g', 'rename f.txt',
      'create h.txt', 'remove h.txt']
    await eventually(() => all.every((e) => events.includes(e)))
    await watch.stop()
    for (const e of all) assert.ok(events.includes(e), `${e} in ${JSON.stringify(events)}`)
    assert.ok(!events.some((e) => e.includes('.hearth-')), 'no temporary files of the agent')
    await assert.rejects(sandbox.files.watchDir('no-such-dir', () => {}), Error)
  })
})

test('signed URLs: a secure sandbox serves uploads and downloads by signature only', async () => {
  await withSandbox(async (sandbox) => {
    const upload = await sandbox.uploadUrl('signed.txt')
    const form = new FormData()
    form.append('file', new Blob(['signed bytes']), 'signed.txt')
    const put = await fetch(upload, { method: 'POST', body: form })
    assert.equal(put.status, 200, await put.clone().text())
    const download = await sandbox.downloadUrl('signed.txt')
    const got = await fetch(download)
    assert.equal(got.status, 200)
    assert.equal(await got.text(), 'signed bytes')
    const expired = await sandbox.downloadUrl('signed.txt', { useSignatureExpiration: 1 })
    await sleep(2_100)
    const late = await fetch(expired)
    assert.equal(late.status, 401)
    assert.equal((await late.json()).code, 401)
    const forged = await fetch(download.replace(/signature=[^&]+/, 'signature=v1_forged'))
    assert.equal(forged.status, 401)
    const unsigned = await fetch(download.replace(/[?&]signature=[^&]+/, ''))
    assert.equal(unsigned.status, 401)
    const again = await Sandbox.connect(sandbox.sandboxId)
    assert.equal(await again.files.read('signed.txt'), 'signed bytes', 'the same token after connect')
  }, { secure: true })
})
