// Databases: the workspace's list, a create form and a page with connection details to copy,
// a credential reset, sleep and wake, the SQL editor with saved queries, branches and metrics.
import { useEffect, useState } from 'preact/hooks'
import { all, api, enc } from './api.js'
import { Branches } from './branches.js'
import { DatabaseMetrics } from './metrics.js'
import { Action, Empty, ErrorBox, Field, html, Loading, may, when } from './ui.js'

export function DatabaseList({ ws, role }) {
  const [databases, setDatabases] = useState(null)
  const [name, setName] = useState('')
  const [error, setError] = useState(null)
  const load = () => all(`/workspaces/${enc(ws)}/databases`, 'databases').then(setDatabases, setError)
  useEffect(() => { load() }, [ws])
  const create = async (e) => {
    e.preventDefault()
    setError(null)
    try {
      await api('POST', `/workspaces/${enc(ws)}/databases`, { name })
      setName('')
      await load()
    } catch (err) { setError(err) }
  }
  return html`<section>
    <h2>Databases</h2>
    <${ErrorBox} error=${error} />
    ${may(role, 'editor') && html`<form id="create-database" class="inline" onSubmit=${create}>
      <${Field} label="New database" name="name" error=${error}>
        <input id="database-name" required placeholder="name" value=${name} onInput=${(e) => setName(e.target.value)} /><//>
      <button id="create-database-submit" type="submit">Create</button>
    </form>`}
    ${databases === null ? html`<${Loading} />` : databases.length === 0 ? html`<${Empty}>No databases yet.<//>` : html`
      <table class="list" id="databases">
        <thead><tr><th>Name</th><th>State</th><th>Version</th><th>Created</th></tr></thead>
        <tbody>${databases.map((d) => html`<tr key=${d.id} data-name=${d.name}>
          <td><a href=${`#/d/${d.id}`}>${d.name}</a></td><td><span class=${'state ' + d.state}>${d.state}</span></td>
          <td>${d.version}</td><td>${when(d.created_at)}</td></tr>`)}</tbody>
      </table>`}
  </section>`
}

function Copy({ label, value, name }) {
  const [done, setDone] = useState(false)
  return html`<div class="copy">
    <span>${label}</span><code data-copy=${name}>${value}</code>
    <button data-action=${'copy-' + name} onClick=${async () => {
      await navigator.clipboard.writeText(value)
      setDone(true)
    }}>${done ? 'Copied' : 'Copy'}</button>
  </div>`
}

export function DatabasePage({ id, tab, roleIn, go }) {
  const [database, setDatabase] = useState(null)
  const [connection, setConnection] = useState(null)
  const [error, setError] = useState(null)
  const load = async () => {
    try {
      setDatabase((await api('GET', `/databases/${enc(id)}`)).database)
      setConnection((await api('GET', `/databases/${enc(id)}/connection`)).connection)
    } catch (err) { setError(err) }
  }
  useEffect(() => { load() }, [id])
  if (!database) return html`<${ErrorBox} error=${error} />${!error && html`<${Loading} />`}`
  const editor = may(roleIn(database.workspace), 'editor')
  const act = (path) => async () => {
    const answer = await api('POST', `/databases/${enc(id)}/${path}`)
    if (answer.connection) setConnection(answer.connection)
    await load()
  }
  const remove = async () => {
    if (!window.confirm(`Delete database ${database.name} and its checkpoints?`)) return
    await api('DELETE', `/databases/${enc(id)}`)
    go(`#/w/${database.workspace}/databases`)
  }
  return html`<section>
    <header class="bar">
      <h2>${database.name} <span id="database-state" class=${'state ' + database.state}>${database.state}</span></h2>
      ${editor && html`<div class="actions">
        ${database.state === 'ready' && html`<${Action} name="sleep" label="Sleep" action=${act('sleep')} onError=${setError} />`}
        ${database.state === 'sleeping' && html`<${Action} name="wake" label="Wake" action=${act('wake')} onError=${setError} />`}
        <${Action} name="reset" label="Reset password" action=${act('reset_credentials')} onError=${setError} />
        <${Action} name="delete" label="Delete" danger action=${remove} onError=${setError} />
      </div>`}
    </header>
    <${ErrorBox} error=${error} />
    <nav class="tabs">${['overview', 'branches', 'metrics'].map((t) => html`<a class=${t === tab ? 'active' : ''} id=${'dtab-' + t} href=${`#/d/${id}/${t}`}>${t}</a>`)}</nav>
    ${tab === 'branches' ? html`<${Branches} database=${database} editor=${editor} go=${go} />`
      : tab === 'metrics' ? html`<${DatabaseMetrics} id=${id} />`
      : html`<${Overview} id=${id} database=${database} connection=${connection} editor=${editor} />`}
  </section>`
}

function Overview({ id, database, connection, editor }) {
  return html`<div>
    ${connection && html`<div class="connection">
      <${Copy} label="Connection string" name="uri" value=${connection.uri} />
      <${Copy} label="Pooler" name="pooler_uri" value=${connection.pooler_uri} />
      <${Copy} label="From computers" name="internal_uri" value=${connection.internal_uri} />
      <${Copy} label="Password" name="password" value=${connection.password} />
    </div>`}
    <${SqlEditor} id=${id} ws=${database.workspace} readOnly=${!editor} />
  </div>`
}

/** One statement at a time, run by the server with a row cap and a time limit (read-only for viewers). */
function SqlEditor({ id, ws, readOnly }) {
  const [sql, setSql] = useState('select 1')
  const [result, setResult] = useState(null)
  const [error, setError] = useState(null)
  const run = async (e) => {
    e.preventDefault()
    setError(null)
    try {
      setResult((await api('POST', `/databases/${enc(id)}/query`, { sql, max_rows: 500 })).result)
    } catch (err) { setResult(null); setError(err) }
  }
  return html`<div class="sql">
    <h3>SQL ${readOnly && html`<span class="muted">(read-only)</span>`}</h3>
    <${SavedQueries} ws=${ws} sql=${sql} load=${setSql} mayWrite=${!readOnly} />
    <form id="sql-form" onSubmit=${run}>
      <textarea id="sql" rows="5" spellcheck="false" value=${sql} onInput=${(e) => setSql(e.target.value)}
        onKeyDown=${(e) => { if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) run(e) }}></textarea>
      <button id="sql-run" type="submit">Run (Ctrl+Enter)</button>
    </form>
    <${ErrorBox} error=${error} />
    ${result && html`<div id="sql-result">
      <p class="muted">${result.command}: ${result.row_count} row${result.row_count === 1 ? '' : 's'}${result.truncated ? ' (more not shown)' : ''}, ${result.duration_millis} ms</p>
      ${result.columns.length > 0 && html`<table class="list"><thead><tr>${result.columns.map((c) => html`<th title=${c.type}>${c.name}</th>`)}</tr></thead>
        <tbody>${result.rows.map((row) => html`<tr>${row.map((v) => html`<td class=${v === null ? 'null' : ''}>${v === null ? 'NULL' : v}</td>`)}</tr>`)}</tbody></table>`}
    </div>`}
  </div>`
}

/** The workspace's saved queries (GET/POST /workspaces/{ws}/queries): load one into the editor, save the editor's text, delete. */
function SavedQueries({ ws, sql, load, mayWrite }) {
  const [queries, setQueries] = useState(null)
  const [picked, setPicked] = useState('')
  const [name, setName] = useState('')
  const [error, setError] = useState(null)
  const refresh = () => all(`/workspaces/${enc(ws)}/queries`, 'queries').then(setQueries, setError)
  useEffect(() => { refresh() }, [ws])
  const pick = (qid) => {
    setPicked(qid)
    const q = (queries || []).find((x) => x.id === qid)
    if (q) { load(q.sql); setName(q.name) }
  }
  const save = async (e) => {
    e.preventDefault()
    setError(null)
    try {
      const current = (queries || []).find((x) => x.id === picked && x.name === name)
      const saved = current ? await api('PATCH', `/queries/${enc(current.id)}`, { sql })
        : await api('POST', `/workspaces/${enc(ws)}/queries`, { name, sql })
      await refresh()
      setPicked(saved.query.id)
    } catch (err) { setError(err) }
  }
  const remove = async () => {
    const q = queries.find((x) => x.id === picked)
    if (!q || !window.confirm(`Delete the saved query ${q.name}?`)) return
    try {
      await api('DELETE', `/queries/${enc(q.id)}`)
      setPicked('')
      await refresh()
    } catch (err) { setError(err) }
  }
  return html`<form id="saved-queries" class="inline" onSubmit=${save}>
    <select id="saved-query" value=${picked} onChange=${(e) => pick(e.target.value)}>
      <option value="">${queries === null ? 'Loading saved queries…' : queries.length === 0 ? 'No saved queries' : 'Saved queries…'}</option>
      ${(queries || []).map((q) => html`<option value=${q.id}>${q.name}</option>`)}
    </select>
    ${mayWrite && html`<${Field} label="" name="name" error=${error}>
        <input id="query-name" placeholder="name to save as" required value=${name} onInput=${(e) => setName(e.target.value)} /><//>
      <button id="query-save" type="submit">Save</button>
      ${picked && html`<button type="button" class="danger" data-action="delete-query" onClick=${remove}>Delete</button>`}`}
    ${error && !error.fields.name && html`<${ErrorBox} error=${error} />`}
  </form>`
}
