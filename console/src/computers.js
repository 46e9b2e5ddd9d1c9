// Computers: the workspace's list (filter, search), a create form, and a page per computer with
// its actions, a terminal and its files.
import { useEffect, useRef, useState } from 'preact/hooks'
import { all, api, enc } from './api.js'
import { Metrics } from './metrics.js'
import { Processes } from './processes.js'
import { openTerminal } from './terminal.js'
import { Action, Empty, ErrorBox, Field, html, Loading, may, when } from './ui.js'

export function ComputerList({ ws, role }) {
  const [computers, setComputers] = useState(null)
  const [search, setSearch] = useState('')
  const [state, setState] = useState('')
  const [error, setError] = useState(null)
  // The server filters (?q= name or image, ?state=), so a search finds what pages not yet loaded hold;
  // typing waits a quarter second before asking, and only the newest answer is shown.
  useEffect(() => {
    let current = true
    const query = new URLSearchParams()
    if (search.trim()) query.set('q', search.trim())
    if (state) query.set('state', state)
    const timer = setTimeout(() => all(`/workspaces/${enc(ws)}/computers${query.size ? '?' + query : ''}`, 'computers').then((list) => {
      if (!current) return
      performance.mark('computers-data', { detail: list.length })
      setComputers(list)
    }, (err) => current && setError(err)), computers === null ? 0 : 250)
    return () => { current = false; clearTimeout(timer) }
  }, [ws, search, state])
  // What bench/ ConsoleBench times: from the data's arrival to the list on screen.
  useEffect(() => { if (computers) performance.mark('computers-rendered', { detail: computers.length }) }, [computers])
  const shown = computers || []
  return html`<section>
    <header class="bar">
      <h2>Computers</h2>
      ${may(role, 'editor') && html`<a class="button" id="new-computer" href=${`#/w/${ws}/computers/new`}>New computer</a>`}
    </header>
    <${ErrorBox} error=${error} />
    <div class="filters">
      <input id="search" placeholder="Search by name or image" value=${search} onInput=${(e) => setSearch(e.target.value)} />
      <select id="state-filter" value=${state} onChange=${(e) => setState(e.target.value)}>
        <option value="">Any state</option>
        ${['ready', 'sleeping', 'creating', 'failed'].map((s) => html`<option value=${s}>${s}</option>`)}
      </select>
    </div>
    ${computers === null ? html`<${Loading} />` : shown.length === 0
      ? html`<${Empty}>${search || state ? 'No computer matches.' : 'No computers yet.'}<//>` : html`
      <table class="list" id="computers">
        <thead><tr><th>Name</th><th>State</th><th>Image</th><th>Resources</th><th>URL</th><th>Last active</th></tr></thead>
        <tbody>${shown.map((c) => html`<tr key=${c.id} data-name=${c.name}>
          <td><a href=${`#/c/${c.id}`}>${c.name}</a></td>
          <td><span class=${'state ' + c.state}>${c.state}${c.sleep_mode ? ` (${c.sleep_mode})` : ''}</span>${c.unresponsive_since
            ? html` <span class="state failed" title=${'its agent has not answered since ' + when(c.unresponsive_since)}>unresponsive</span>` : ''}${frozen(c)}</td>
          <td>${c.image}</td>
          <td>${c.resources.cpus} CPU · ${c.resources.memory_mb} MB</td>
          <td>${c.url && html`<a href=${c.url} target="_blank" rel="noopener">${c.url}</a>`}</td>
          <td>${when(c.last_active_at || c.updated_at)}</td>
        </tr>`)}</tbody>
      </table>`}
  </section>`
}

/** "10.1.0.0/16, 203.0.113.7" as a list of networks. */
const networks = (text) => text.split(/[\s,]+/).filter(Boolean)

/** "NAME=value" lines as a computer's env. */
/** Frozen while idle: still ready, using no CPU until its next request or packet thaws it. */
function frozen(c) {
  return c.frozen_since && !c.sleep_mode
    ? html` <span class="state sleeping frozen" title=${'idle: frozen since ' + when(c.frozen_since) + '; the next request thaws it'}>frozen</span>`
    : ''
}

function envOf(text) {
  const env = {}
  for (const line of text.split('\n').map((l) => l.trim()).filter(Boolean)) {
    const eq = line.indexOf('=')
    env[eq < 0 ? line : line.slice(0, eq)] = eq < 0 ? '' : line.slice(eq + 1)
  }
  return env
}

export function CreateComputer({ ws, go }) {
  const [form, setForm] = useState({ name: '', image: 'hearth/busybox', env: '', secrets: '', port: '', cpus: '1',
    memory: '512', sleep: '', internet: true, allowOut: '', denyOut: '' })
  const [error, setError] = useState(null)
  const set = (key) => (e) => setForm({ ...form, [key]: e.target.value })
  const submit = async (e) => {
    e.preventDefault()
    setError(null)
    const env = envOf(form.env)
    for (const [name, variable] of Object.entries(envOf(form.secrets))) env[name] = { secret: variable }
    const body = { name: form.name, image: form.image, env,
      resources: { cpus: Number(form.cpus), memory_mb: Number(form.memory) },
      network: { internet: form.internet, allow_out: networks(form.allowOut), deny_out: networks(form.denyOut) } }
    if (form.port) body.ports = [{ target: Number(form.port) }]
    if (form.sleep) body.auto_sleep_seconds = Number(form.sleep)
    try {
      const made = await api('POST', `/workspaces/${enc(ws)}/computers`, body)
      go(`#/c/${made.computer.id}`)
    } catch (err) { setError(err) }
  }
  return html`<section>
    <h2>New computer</h2>
    <${ErrorBox} error=${error} />
    <form id="create-computer" onSubmit=${submit}>
      <${Field} label="Name" name="name" error=${error}><input id="name" required value=${form.name} onInput=${set('name')} /><//>
      <${Field} label="Image" name="image" error=${error}><input id="image" required value=${form.image} onInput=${set('image')} /><//>
      <${Field} label="Environment (NAME=value, one a line)" name="env" error=${error}>
        <textarea id="env" rows="3" value=${form.env} onInput=${set('env')}></textarea><//>
      <${Field} label="Secrets (NAME=variable, one a line: the workspace's variable, resolved as each process starts)" name="env" error=${error}>
        <textarea id="secrets" rows="2" value=${form.secrets} onInput=${set('secrets')}></textarea><//>
      <${Field} label="Port to publish" name="ports[0].target" error=${error}><input id="port" inputmode="numeric" value=${form.port} onInput=${set('port')} /><//>
      <${Field} label="CPUs" name="resources.cpus" error=${error}><input id="cpus" value=${form.cpus} onInput=${set('cpus')} /><//>
      <${Field} label="Memory (MB)" name="resources.memory_mb" error=${error}><input id="memory" value=${form.memory} onInput=${set('memory')} /><//>
      <${Field} label="Sleep after idle seconds (empty: never)" name="auto_sleep_seconds" error=${error}>
        <input id="auto-sleep" value=${form.sleep} onInput=${set('sleep')} /><//>
      <fieldset class="network"><legend>Network</legend>
        <label class="check"><input id="internet" type="checkbox" checked=${form.internet}
          onChange=${(e) => setForm({ ...form, internet: e.target.checked })} /> May reach the internet</label>
        <${Field} label="Always reach (networks, comma-separated)" name="network.allow_out" error=${error}>
          <input id="allow-out" placeholder="203.0.113.0/24" value=${form.allowOut} onInput=${set('allowOut')} /><//>
        <${Field} label="Never reach" name="network.deny_out" error=${error}>
          <input id="deny-out" placeholder="198.51.100.7" value=${form.denyOut} onInput=${set('denyOut')} /><//>
      </fieldset>
      <button id="create" type="submit">Create</button>
    </form>
  </section>`
}

export function ComputerPage({ id, tab, roleIn, go }) {
  const [computer, setComputer] = useState(null)
  const [error, setError] = useState(null)
  const load = () => api('GET', `/computers/${enc(id)}`).then((r) => setComputer(r.computer), setError)
  useEffect(() => { load() }, [id])
  if (!computer) return html`<${ErrorBox} error=${error} />${!error && html`<${Loading} />`}`
  const editor = may(roleIn(computer.workspace), 'editor')
  const act = (path) => async () => { await api('POST', `/computers/${enc(id)}/${path}`); await load() }
  const remove = async () => {
    if (!window.confirm(`Delete computer ${computer.name}? Its files go with it.`)) return
    await api('DELETE', `/computers/${enc(id)}`)
    go(`#/w/${computer.workspace}/computers`)
  }
  const tabs = ['overview', 'terminal', 'processes', 'files', 'checkpoints', 'metrics']
  return html`<section>
    <header class="bar">
      <h2>${computer.name} <span id="computer-state" class=${'state ' + computer.state}>${computer.state}</span>${computer.unresponsive_since
        ? html` <span class="state failed" title=${'its agent has not answered since ' + when(computer.unresponsive_since)}>unresponsive</span>` : ''}${frozen(computer)}</h2>
      ${editor && html`<div class="actions">
        ${computer.state === 'ready' && html`<${Action} name="sleep" label="Sleep" action=${act('sleep')} onError=${setError} />`}
        ${computer.state === 'sleeping' && html`<${Action} name="wake" label="Wake" action=${act('wake')} onError=${setError} />`}
        <${Action} name="delete" label="Delete" danger action=${remove} onError=${setError} />
      </div>`}
    </header>
    <${ErrorBox} error=${error} />
    <nav class="tabs">${tabs.map((t) => html`<a class=${t === tab ? 'active' : ''} id=${'tab-' + t} href=${`#/c/${id}/${t}`}>${t}</a>`)}</nav>
    ${tab === 'terminal' ? (editor ? html`<${TerminalTab} id=${id} />` : html`<${Empty}>Terminals need the editor role.<//>`)
      : tab === 'files' ? html`<${FilesTab} id=${id} editor=${editor} />`
      : tab === 'metrics' ? html`<${Metrics} id=${id} />`
      : tab === 'processes' ? html`<${Processes} id=${id} />`
      : tab === 'checkpoints' ? html`<${Checkpoints} computer=${computer} editor=${editor} go=${go} reload=${load} />`
      : html`<${Overview} computer=${computer} />`}
  </section>`
}

function Overview({ computer: c }) {
  const rows = [['Image', c.image], ['State', c.state + (c.pending ? ` (${c.pending})` : '')],
    ['Resources', `${c.resources.cpus} CPU · ${c.resources.memory_mb} MB · ${c.resources.disk_mb} MB disk`],
    ['URL', c.url], ['Ports', c.ports.map((p) => `${p.target} → ${p.url}`).join(', ') || '—'],
    ['Environment', (c.env_vars || []).map((v) => v.name + (v.source === 'secret' ? ' (secret' + (v.missing ? ', missing!' : '') + ')' : '')).join(', ') || '—'],
    ['Network', `internet ${c.network.internet ? 'yes' : 'no'}`
      + (c.network.allow_out.length ? ` · always ${c.network.allow_out.join(', ')}` : '')
      + (c.network.deny_out.length ? ` · never ${c.network.deny_out.join(', ')}` : '')],
    ['Auto-sleep', c.auto_sleep_seconds ? `${c.auto_sleep_seconds} s` : 'never'],
    ['Created', when(c.created_at)], ['Updated', when(c.updated_at)]]
  return html`<dl class="facts">${rows.map(([k, v]) => html`<dt>${k}</dt><dd>${v}</dd>`)}</dl>`
}

function TerminalTab({ id }) {
  const box = useRef(null)
  const [status, setStatus] = useState('connecting')
  useEffect(() => {
    setStatus('connected')
    return openTerminal(box.current, id, setStatus)
  }, [id])
  return html`<div><p class="muted" id="terminal-status">${status}</p><div id="terminal" class="terminal" ref=${box}></div></div>`
}

function FilesTab({ id, editor }) {
  const [dir, setDir] = useState('/data')
  const [files, setFiles] = useState(null)
  const [error, setError] = useState(null)
  const load = () => api('GET', `/computers/${enc(id)}/files/list?path=${enc(dir)}`)
    .then((r) => { setFiles(r.files); setError(null) }, (e) => { setFiles([]); setError(e) })
  useEffect(() => { load() }, [id, dir])
  const upload = async (e) => {
    const file = e.target.files[0]
    if (!file) return
    try {
      await api('PUT', `/computers/${enc(id)}/files?path=${enc(dir.replace(/\/$/, '') + '/' + file.name)}`, file)
      await load()
    } catch (err) { setError(err) }
    e.target.value = ''
  }
  const remove = (f) => async () => {
    if (!window.confirm(`Delete ${f.path}?`)) return
    await api('DELETE', `/computers/${enc(id)}/files?path=${enc(f.path)}&recursive=true`)
    await load()
  }
  return html`<div>
    <div class="filters">
      <input id="dir" value=${dir} onChange=${(e) => setDir(e.target.value)} />
      ${editor && html`<label class="button">Upload<input id="upload" type="file" hidden onChange=${upload} /></label>`}
    </div>
    <${ErrorBox} error=${error} />
    ${files === null ? html`<${Loading} />` : files.length === 0 ? html`<${Empty}>Nothing here.<//>` : html`
      <table class="list" id="files"><tbody>${files.map((f) => html`<tr key=${f.path} data-name=${f.name}>
        <td>${f.type === 'dir' ? html`<a href="#" onClick=${(e) => { e.preventDefault(); setDir(f.path) }}>${f.name}/</a>`
          : html`<a href=${`/v1/computers/${enc(id)}/files?path=${enc(f.path)}`} download=${f.name}>${f.name}</a>`}</td>
        <td>${f.size}</td><td>${when(f.modified_at)}</td>
        <td>${editor && html`<${Action} name="delete-file" label="Delete" danger action=${remove(f)} onError=${setError} />`}</td>
      </tr>`)}</tbody></table>`}
  </div>`
}

/** Take a checkpoint of the running computer, roll it back to one, or fork a new computer from one. */
function Checkpoints({ computer, editor, go, reload }) {
  const [checkpoints, setCheckpoints] = useState(null)
  const [name, setName] = useState('')
  const [error, setError] = useState(null)
  const load = () => all(`/computers/${enc(computer.id)}/checkpoints`, 'checkpoints').then(setCheckpoints, setError)
  useEffect(() => {
    load()
    const timer = setInterval(load, 2000) // a checkpoint is made in the background
    return () => clearInterval(timer)
  }, [computer.id])
  const take = async (e) => {
    e.preventDefault()
    setError(null)
    try {
      await api('POST', `/computers/${enc(computer.id)}/checkpoints`, name ? { name } : {})
      setName('')
      await load()
    } catch (err) { setError(err) }
  }
  const restore = (c) => async () => {
    if (!window.confirm(`Roll ${computer.name} back to ${c.name}? What it did since is lost.`)) return
    await api('POST', `/computers/${enc(computer.id)}/restore`, { checkpoint: c.id })
    await reload()
  }
  const fork = (c) => async () => {
    const forkName = window.prompt('Name of the new computer', `${computer.name}-fork`)
    if (!forkName) return
    const made = await api('POST', `/workspaces/${enc(computer.workspace)}/computers`, { name: forkName, from_checkpoint: c.id })
    go(`#/c/${made.computer.id}`)
  }
  return html`<div>
    ${editor && html`<form id="take-checkpoint" class="inline" onSubmit=${take}>
      <${Field} label="New checkpoint (memory, overlay and /data)" name="name" error=${error}>
        <input id="checkpoint-name" placeholder="name (optional)" value=${name} onInput=${(e) => setName(e.target.value)} /><//>
      <button id="checkpoint-submit" type="submit">Take</button>
    </form>`}
    <${ErrorBox} error=${error} />
    ${checkpoints === null ? html`<${Loading} />` : checkpoints.length === 0 ? html`<${Empty}>No checkpoints.<//>` : html`
      <table class="list" id="checkpoints"><tbody>${checkpoints.map((c) => html`<tr key=${c.id} data-name=${c.name}>
        <td>${c.name}</td><td class="checkpoint-state">${c.state}</td><td>${when(c.created_at)}</td>
        <td>${editor && c.state === 'ready' && html`
          <${Action} name="restore" label="Restore" danger action=${restore(c)} onError=${setError} />
          <${Action} name="fork" label="Fork" action=${fork(c)} onError=${setError} />`}</td>
      </tr>`)}</tbody></table>`}
  </div>`
}
