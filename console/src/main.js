// The console's shell: who is signed in (GET /v1/me), the workspace in the URL, and a page per
// URL (#/w/WS/computers, #/c/ID/terminal, ...), so reload and back work as in any site.
import { render } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { api } from './api.js'
import { ComputerList, ComputerPage, CreateComputer } from './computers.js'
import { DatabaseList, DatabasePage } from './databases.js'
import { Nodes } from './nodes.js'
import { Operations } from './operations.js'
import { SignIn } from './signin.js'
import { useKeys } from './keys.js'
import { html, Loading } from './ui.js'
import { Settings } from './workspace.js'
import './style.css'

function useHash() {
  const [hash, setHash] = useState(location.hash || '#/')
  useEffect(() => {
    const onChange = () => setHash(location.hash || '#/')
    window.addEventListener('hashchange', onChange)
    return () => window.removeEventListener('hashchange', onChange)
  }, [])
  return hash
}

const go = (hash) => { location.hash = hash }
const NEW = '+new'  // the switcher's choice that makes a workspace

// When the signed-in page first shows (bench/ ConsoleBench reads it: first load to interactive).
const marks = { done: false, interactive() {
  if (!this.done) requestAnimationFrame(() => performance.mark('hearth-interactive'))
  this.done = true
} }

/** The page a URL names, and the workspace it is in (computers and databases name theirs when loaded). */
function route(hash) {
  const parts = hash.replace(/^#\/?/, '').split('/').filter(Boolean)
  if (parts[0] === 'nodes') return { page: 'nodes' }
  if (parts[0] === 'w' && parts.length >= 3) return { ws: parts[1], page: parts[2], sub: parts[3] }
  if (parts[0] === 'c' && parts[1]) return { page: 'computer', id: parts[1], sub: parts[2] || 'overview' }
  if (parts[0] === 'd' && parts[1]) return { page: 'database', id: parts[1], sub: parts[2] || 'overview' }
  return { page: 'home' }
}

function App() {
  const [me, setMe] = useState(undefined)
  const hash = useHash()
  const load = () => api('GET', '/me').then(setMe, (err) => setMe(err.status === 401 ? null : { error: err }))
  useEffect(() => { load() }, [])
  const r = route(hash)
  const memberships = (me && me.workspaces) || []
  const current = memberships.find((m) => m.workspace.id === r.ws || m.workspace.name === r.ws) || memberships[0]
  const keysHelp = useKeys(me && current && current.workspace.id, go)
  if (me === undefined) return html`<${Loading} />`
  if (me === null) return html`<${SignIn} onSignedIn=${load} />`
  if (r.page === 'home' && (current || me.operator)) {
    go(current ? `#/w/${current.workspace.id}/computers` : '#/nodes')
    return html`<${Loading} />`
  }
  const createWorkspace = async (select) => {
    select.value = current ? current.workspace.id : ''
    const name = window.prompt('Name of the new workspace (letters, digits and -)')
    if (!name) return
    try {
      const made = await api('POST', '/workspaces', { name })
      await load()
      go(`#/w/${made.workspace.id}/computers`)
    } catch (err) { window.alert(`${err.message}${err.requestId ? ` (request ${err.requestId})` : ''}`) }
  }
  const logout = async () => {
    await api('POST', '/auth/console/logout')
    setMe(null)
  }
  marks.interactive()
  return html`<div class="shell">
    <header class="top">
      <strong>Hearth</strong>
      <select id="workspace" value=${current && current.workspace.id}
        onChange=${(e) => (e.target.value === NEW ? createWorkspace(e.target) : go(`#/w/${e.target.value}/computers`))}>
        ${memberships.map((m) => html`<option value=${m.workspace.id}>${m.workspace.name} (${m.role})</option>`)}
        <option value=${NEW}>New workspace…</option>
      </select>
      ${current && html`<nav>
        <a id="nav-computers" href=${`#/w/${current.workspace.id}/computers`}>Computers</a>
        <a id="nav-databases" href=${`#/w/${current.workspace.id}/databases`}>Databases</a>
        <a id="nav-operations" href=${`#/w/${current.workspace.id}/operations`}>Operations</a>
        <a id="nav-settings" href=${`#/w/${current.workspace.id}/settings`}>Workspace</a>
      </nav>`}
      ${me.operator && html`<a id="nav-nodes" href="#/nodes">Nodes</a>`}
      <span class="who" id="who">${me.principal.name}</span>
      <span class="muted key-hint" title="Keyboard shortcuts">? keys</span>
      <button id="logout" onClick=${logout}>Sign out</button>
    </header>
    <main>${page(r, current, memberships)}</main>
    ${keysHelp}
  </div>`
}

function page(r, current, memberships) {
  if (r.page === 'nodes') return html`<${Nodes} />`
  if (!current) return html`<p class="empty">You are in no workspace yet: ask an admin for an invitation.</p>`
  const roleIn = (ws) => (memberships.find((m) => m.workspace.id === ws) || current).role
  switch (r.page) {
    case 'computers':
      return r.sub === 'new' ? html`<${CreateComputer} ws=${current.workspace.id} go=${go} />`
        : html`<${ComputerList} ws=${current.workspace.id} role=${current.role} />`
    case 'computer':
      return html`<${ComputerPage} id=${r.id} tab=${r.sub} roleIn=${roleIn} go=${go} />`
    case 'databases':
      return html`<${DatabaseList} ws=${current.workspace.id} role=${current.role} />`
    case 'database':
      return html`<${DatabasePage} id=${r.id} tab=${r.sub} roleIn=${roleIn} go=${go} />`
    case 'operations':
      return html`<${Operations} ws=${current.workspace.id} />`
    case 'settings':
      return html`<${Settings} ws=${current.workspace.id} role=${current.role} />`
    default:
      return html`<p class="empty">No such page.</p>`
  }
}

render(html`<${App} />`, document.getElementById('app'))
