// A database's checkpoints (take one, branch a new database from one) and the workspace's
// databases drawn as the tree their branches make: each branch hangs under the database and the
// checkpoint it was made from.
import { useEffect, useState } from 'preact/hooks'
import { all, api, enc } from './api.js'
import { Action, Empty, ErrorBox, Field, html, Loading, when } from './ui.js'

export function Branches({ database, editor, go }) {
  const [history, setHistory] = useState(null)
  const [checkpoints, setCheckpoints] = useState(null)
  const [databases, setDatabases] = useState(null)
  const [name, setName] = useState('')
  const [error, setError] = useState(null)
  const load = () => Promise.all([
    all(`/databases/${enc(database.id)}/checkpoints`, 'checkpoints').then(setCheckpoints),
    all(`/workspaces/${enc(database.workspace)}/databases`, 'databases').then(setDatabases),
    api('GET', `/databases/${enc(database.id)}/history`).then((r) => setHistory(r.history)),
  ]).catch(setError)
  useEffect(() => {
    load()
    const timer = setInterval(load, 3000) // a checkpoint is made in the background
    return () => clearInterval(timer)
  }, [database.id])
  const take = async (e) => {
    e.preventDefault()
    setError(null)
    try {
      await api('POST', `/databases/${enc(database.id)}/checkpoints`, name ? { name } : {})
      setName('')
      await load()
    } catch (err) { setError(err) }
  }
  const branch = (c) => async () => {
    const branchName = window.prompt('Name of the new database', `${database.name}-${c.name}`)
    if (!branchName) return
    const made = await api('POST', `/workspaces/${enc(database.workspace)}/databases`, { name: branchName, from_checkpoint: c.id })
    go(`#/d/${made.database.id}`)
  }
  return html`<div>
    ${editor && html`<form id="take-database-checkpoint" class="inline" onSubmit=${take}>
      <${Field} label="New checkpoint (copy-on-write, whatever the size)" name="name" error=${error}>
        <input id="database-checkpoint-name" placeholder="name (optional)" value=${name} onInput=${(e) => setName(e.target.value)} /><//>
      <button id="database-checkpoint-submit" type="submit">Take</button>
    </form>`}
    <${ErrorBox} error=${error} />
    ${history && html`<${AtMoment} key=${database.id} database=${database} history=${history} editor=${editor} go=${go} />`}
    ${checkpoints === null ? html`<${Loading} />` : checkpoints.length === 0 ? html`<${Empty}>No checkpoints.<//>` : html`
      <table class="list" id="database-checkpoints"><tbody>${checkpoints.map((c) => html`<tr key=${c.id} data-name=${c.name}>
        <td>${c.name}</td><td class="checkpoint-state">${c.state}</td><td>${when(c.created_at)}</td>
        <td>${editor && c.state === 'ready' && html`<${Action} name="branch" label="Branch" action=${branch(c)} onError=${setError} />`}</td>
      </tr>`)}</tbody></table>`}
    <h3>Branches</h3>
    ${databases === null ? html`<${Loading} />` : html`<${Tree} databases=${databases} current=${database.id} />`}
  </div>`
}

/** The workspace's databases as nested lists: roots first, each branch under its parent. */
function Tree({ databases, current }) {
  const ids = new Set(databases.map((d) => d.id))
  const children = new Map()
  for (const d of databases) {
    const parent = d.parent && ids.has(d.parent) ? d.parent : null
    if (!children.has(parent)) children.set(parent, [])
    children.get(parent).push(d)
  }
  const node = (d) => html`<li key=${d.id} data-name=${d.name}>
    <a href=${`#/d/${d.id}/branches`} class=${d.id === current ? 'current' : ''}>${d.name}</a>
    <span class=${'state ' + d.state}>${d.state}</span>
    ${d.from_checkpoint && html`<span class="muted"> from checkpoint <code>${d.from_checkpoint}</code></span>`}
    ${children.has(d.id) && html`<ul>${children.get(d.id).map(node)}</ul>`}
  </li>`
  return html`<ul class="tree" id="branch-tree">${(children.get(null) || []).map(node)}</ul>`
}

/** The database's history window, and (for editors) a branch as it was at a moment of it. */
function AtMoment({ database, history, editor, go }) {
  const [name, setName] = useState(`${database.name}-then`)
  const [at, setAt] = useState('')
  const [error, setError] = useState(null)
  const branch = async (e) => {
    e.preventDefault()
    setError(null)
    try {
      // datetime-local is the viewer's zone; the API takes an instant.
      const moment = at ? new Date(at).toISOString() : new Date().toISOString()
      const made = await api('POST', `/workspaces/${enc(database.workspace)}/databases`, { name, from_database: database.id, at: moment })
      go(`#/d/${made.database.id}`)
    } catch (err) { setError(err) }
  }
  const restore = async () => {
    setError(null)
    const moment = at ? new Date(at) : new Date()
    if (!window.confirm(`Roll ${database.name} back to ${moment.toLocaleString()}? Its sessions end once; what it is now is kept as a branch.`)) return
    try {
      const answer = await api('POST', `/databases/${enc(database.id)}/restore`, { at: moment.toISOString() })
      go(`#/d/${answer.backup.id}/branches`)
    } catch (err) { setError(err) }
  }
  const [trip, setTrip] = useState(null)
  const travel = async () => {
    setError(null)
    try {
      const answer = await api('POST', `/databases/${enc(database.id)}/time_travels`, { at: (at ? new Date(at) : new Date()).toISOString() })
      setTrip(answer.time_travel)
    } catch (err) { setError(err) }
  }
  const endTrip = async () => {
    setError(null)
    try {
      await api('DELETE', `/databases/${enc(database.id)}/time_travels/${enc(trip.id)}`)
      setTrip(null)
    } catch (err) { setError(err) }
  }
  return html`<div id="history">
    <p class="muted">${history.earliest ? `History from ${when(history.earliest)} (a window of ${history.window_seconds / 3600} h; ${history.bases} base${history.bases === 1 ? '' : 's'}, ${Math.round(history.archive_bytes / 1048576)} MB of WAL)` : 'No history yet: the first base is being made.'}</p>
    ${editor && history.earliest && html`<form id="branch-at" class="inline" onSubmit=${branch}>
      <${Field} label="Branch as it was at (empty: now)" name="at" error=${error}>
        <input id="branch-at-time" type="datetime-local" step="1" value=${at} onInput=${(e) => setAt(e.target.value)} /><//>
      <${Field} label="Name" name="name" error=${error}>
        <input id="branch-at-name" required value=${name} onInput=${(e) => setName(e.target.value)} /><//>
      <button id="branch-at-submit" type="submit">Branch</button>
      <button id="travel-at" type="button" onClick=${travel}>Read at this moment</button>
      <button id="restore-at" type="button" class="danger" onClick=${restore}>Restore in place</button>
    </form>`}
    ${trip && html`<div id="time-travel" class="secret">
      <p>Read-only, as it was at ${trip.at}, until ${when(trip.expires_at)} (the password is shown once):</p>
      <code>${trip.connection.uri}</code>
      <button id="travel-end" type="button" onClick=${endTrip}>End</button>
    </div>`}
    ${error && !error.fields.at && !error.fields.name && html`<${ErrorBox} error=${error} />`}
  </div>`
}
