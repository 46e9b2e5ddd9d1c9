// A workspace's people and keys: members and their roles, invitations (send, resend, revoke) and
// API keys (a new key's secret shown once; revoke).
import { useEffect, useState } from 'preact/hooks'
import { all, api, enc } from './api.js'
import { Action, Empty, ErrorBox, Field, html, Loading, may, when } from './ui.js'

export function Settings({ ws, role }) {
  return html`<section>
    <h2>Workspace</h2>
    <${Members} ws=${ws} admin=${may(role, 'admin')} />
    ${may(role, 'admin') && html`<${Invitations} ws=${ws} />`}
    <${Variables} ws=${ws} editor=${may(role, 'editor')} />
    <${ApiKeys} ws=${ws} />
  </section>`
}

function Members({ ws, admin }) {
  const [members, setMembers] = useState(null)
  const [error, setError] = useState(null)
  const load = () => all(`/workspaces/${enc(ws)}/access`, 'access').then(setMembers, setError)
  useEffect(() => { load() }, [ws])
  const change = (m) => async (e) => {
    setError(null)
    try { await api('PATCH', `/workspaces/${enc(ws)}/access/${enc(m.principal.id)}`, { role: e.target.value }) } catch (err) { setError(err) }
    await load()
  }
  const remove = (m) => async () => {
    if (!window.confirm(`Remove ${m.principal.name} from this workspace?`)) return
    await api('DELETE', `/workspaces/${enc(ws)}/access/${enc(m.principal.id)}`)
    await load()
  }
  return html`<div><h3>Members</h3><${ErrorBox} error=${error} />
    ${members === null ? html`<${Loading} />` : html`<table class="list" id="members"><tbody>
      ${members.map((m) => html`<tr key=${m.principal.id} data-name=${m.principal.name}><td>${m.principal.name}</td><td>${m.principal.auth}</td>
        <td>${admin ? html`<select class="member-role" value=${m.role} onChange=${change(m)}>
          ${['viewer', 'editor', 'admin'].map((r) => html`<option value=${r}>${r}</option>`)}</select>` : m.role}</td>
        <td>${admin && html`<${Action} name="remove-member" label="Remove" danger action=${remove(m)} onError=${setError} />`}</td></tr>`)}
    </tbody></table>`}</div>`
}

function Invitations({ ws }) {
  const [invitations, setInvitations] = useState(null)
  const [email, setEmail] = useState('')
  const [role, setRole] = useState('editor')
  const [error, setError] = useState(null)
  const load = () => all(`/workspaces/${enc(ws)}/invitations`, 'invitations').then(setInvitations, setError)
  useEffect(() => { load() }, [ws])
  const invite = async (e) => {
    e.preventDefault()
    setError(null)
    try {
      await api('POST', `/workspaces/${enc(ws)}/invitations`, { email, role })
      setEmail('')
      await load()
    } catch (err) { setError(err) }
  }
  const revoke = (i) => async () => {
    if (!window.confirm(`Revoke the invitation of ${i.email}?`)) return
    await api('DELETE', `/invitations/${enc(i.id)}`)
    await load()
  }
  return html`<div><h3>Invitations</h3><${ErrorBox} error=${error} />
    <form id="invite" class="inline" onSubmit=${invite}>
      <${Field} label="Email" name="email" error=${error}>
        <input id="invite-email" type="email" required value=${email} onInput=${(e) => setEmail(e.target.value)} /><//>
      <select id="invite-role" value=${role} onChange=${(e) => setRole(e.target.value)}>
        ${['viewer', 'editor', 'admin'].map((r) => html`<option value=${r}>${r}</option>`)}
      </select>
      <button id="invite-submit" type="submit">Invite</button>
    </form>
    ${invitations === null ? html`<${Loading} />` : invitations.length === 0 ? html`<${Empty}>No pending invitations.<//>`
      : html`<table class="list" id="invitations"><tbody>${invitations.map((i) => html`<tr key=${i.id} data-name=${i.email}>
        <td>${i.email}</td><td>${i.role}</td><td>${i.state}</td><td>expires ${when(i.expires_at)}</td>
        <td><${Action} name="resend" label="Resend" action=${async () => { await api('POST', `/invitations/${enc(i.id)}/resend`); await load() }} onError=${setError} />
        <${Action} name="revoke-invitation" label="Revoke" danger action=${revoke(i)} onError=${setError} /></td>
      </tr>`)}</tbody></table>`}</div>`
}

function ApiKeys({ ws }) {
  const [keys, setKeys] = useState(null)
  const [name, setName] = useState('')
  const [secret, setSecret] = useState(null)
  const [error, setError] = useState(null)
  const load = () => all(`/workspaces/${enc(ws)}/api_keys`, 'api_keys').then(setKeys, setError)
  useEffect(() => { load() }, [ws])
  const create = async (e) => {
    e.preventDefault()
    setError(null)
    try {
      const made = await api('POST', `/workspaces/${enc(ws)}/api_keys`, { name })
      setSecret(made.secret)
      setName('')
      await load()
    } catch (err) { setError(err) }
  }
  const revoke = (k) => async () => {
    if (!window.confirm(`Revoke API key ${k.name}? Whatever uses it stops working at once.`)) return
    await api('DELETE', `/workspaces/${enc(ws)}/api_keys/${enc(k.id)}`)
    await load()
  }
  return html`<div><h3>API keys</h3><${ErrorBox} error=${error} />
    <form id="create-key" class="inline" onSubmit=${create}>
      <${Field} label="New key" name="name" error=${error}>
        <input id="key-name" required placeholder="name" value=${name} onInput=${(e) => setName(e.target.value)} /><//>
      <button id="create-key-submit" type="submit">Create</button>
    </form>
    ${secret && html`<p class="secret">Copy this key now; it is not shown again: <code id="new-secret">${secret}</code></p>`}
    ${keys === null ? html`<${Loading} />` : keys.length === 0 ? html`<${Empty}>No API keys.<//>`
      : html`<table class="list" id="api-keys"><tbody>${keys.map((k) => html`<tr key=${k.id} data-name=${k.name}>
        <td>${k.name}</td><td>${k.prefix}…</td><td>${k.role}</td><td class="key-state">${k.state}</td>
        <td>${k.state === 'active' && html`<${Action} name="revoke-key" label="Revoke" danger action=${revoke(k)} onError=${setError} />`}</td>
      </tr>`)}</tbody></table>`}</div>`
}

/** The workspace's variables (secrets computers reference by name): names listed, a value shown only when asked. */
function Variables({ ws, editor }) {
  const [variables, setVariables] = useState(null)
  const [shown, setShown] = useState({})
  const [form, setForm] = useState({ name: '', value: '' })
  const [error, setError] = useState(null)
  const load = () => all(`/workspaces/${enc(ws)}/variables`, 'variables').then(setVariables, setError)
  useEffect(() => { load() }, [ws])
  const save = async (e) => {
    e.preventDefault()
    setError(null)
    try {
      const existing = (variables || []).find((v) => v.name === form.name)
      if (existing) await api('PATCH', `/variables/${enc(existing.id)}`, { value: form.value })
      else await api('POST', `/workspaces/${enc(ws)}/variables`, form)
      setForm({ name: '', value: '' })
      await load()
    } catch (err) { setError(err) }
  }
  const reveal = (v) => async () => {
    const got = await api('GET', `/variables/${enc(v.id)}`)
    setShown({ ...shown, [v.id]: got.variable.value })
  }
  const remove = (v) => async () => {
    if (!window.confirm(`Delete variable ${v.name}? Computers that use it cannot run commands until it is set again.`)) return
    await api('DELETE', `/variables/${enc(v.id)}`)
    await load()
  }
  return html`<div><h3>Variables</h3><${ErrorBox} error=${error} />
    ${editor && html`<form id="set-variable" class="inline" onSubmit=${save}>
      <${Field} label="Name" name="name" error=${error}>
        <input id="variable-name" required value=${form.name} onInput=${(e) => setForm({ ...form, name: e.target.value })} /><//>
      <${Field} label="Value" name="value" error=${error}>
        <input id="variable-value" type="password" required value=${form.value} onInput=${(e) => setForm({ ...form, value: e.target.value })} /><//>
      <button id="variable-submit" type="submit">Set</button>
    </form>`}
    ${variables === null ? html`<${Loading} />` : variables.length === 0 ? html`<${Empty}>No variables.<//>`
      : html`<table class="list" id="variables"><tbody>${variables.map((v) => html`<tr key=${v.id} data-name=${v.name}>
        <td>${v.name}</td><td class="value">${v.id in shown ? html`<code>${shown[v.id]}</code>` : '••••••'}</td>
        <td>${when(v.updated_at)}</td>
        <td>${editor && html`<${Action} name="reveal" label="Reveal" action=${reveal(v)} onError=${setError} />
          <${Action} name="delete-variable" label="Delete" danger action=${remove(v)} onError=${setError} />`}</td>
      </tr>`)}</tbody></table>`}</div>`
}
