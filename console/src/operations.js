// A workspace's operations, newest first: what runs now and what ran, with the error of each one
// that failed. Refreshed every few seconds while anything runs; older pages on demand.
import { useEffect, useState } from 'preact/hooks'
import { api, enc } from './api.js'
import { Empty, ErrorBox, html, Loading, when } from './ui.js'

const STATES = ['', 'running', 'succeeded', 'failed']

export function Operations({ ws }) {
  const [state, setState] = useState('')
  const [operations, setOperations] = useState(null)
  const [next, setNext] = useState(null)
  const [error, setError] = useState(null)
  const path = (cursor) => `/workspaces/${enc(ws)}/operations?limit=50` + (state ? `&state=${state}` : '')
    + (cursor ? `&cursor=${enc(cursor)}` : '')
  const load = async () => {
    try {
      const page = await api('GET', path(null))
      setOperations(page.operations)
      setNext(page.has_more ? page.next_cursor : null)
      setError(null)
      return page.operations.some((op) => op.state === 'running')
    } catch (err) { setError(err); return false }
  }
  useEffect(() => {
    let timer = null
    let stopped = false
    const tick = async () => {
      const busy = await load()
      if (!stopped) timer = setTimeout(tick, busy ? 2000 : 10000)
    }
    setOperations(null)
    tick()
    return () => { stopped = true; clearTimeout(timer) }
  }, [ws, state])
  const more = async () => {
    try {
      const page = await api('GET', path(next))
      setOperations([...operations, ...page.operations])
      setNext(page.has_more ? page.next_cursor : null)
    } catch (err) { setError(err) }
  }
  return html`<section>
    <header class="bar"><h2>Operations</h2>
      <select id="operations-state" value=${state} onChange=${(e) => setState(e.target.value)}>
        ${STATES.map((s) => html`<option value=${s}>${s || 'every state'}</option>`)}
      </select>
    </header>
    <${ErrorBox} error=${error} />
    ${operations === null ? html`<${Loading} />` : operations.length === 0 ? html`<${Empty}>No operations${state ? ' ' + state : ''}.<//>` : html`
      <table class="list" id="operations">
        <thead><tr><th>Kind</th><th>State</th><th>Resource</th><th>Started</th><th>Finished</th><th>Progress or error</th></tr></thead>
        <tbody>${operations.map((op) => html`<tr key=${op.id} data-id=${op.id} data-state=${op.state}>
          <td title=${op.id}>${op.kind}</td><td><span class=${'state ' + op.state}>${op.state}</span></td>
          <td><code>${op.resource || '—'}</code></td><td>${when(op.created_at)}</td><td>${when(op.completed_at)}</td>
          <td class=${op.error ? 'op-error' : 'muted'}>${op.error ? html`<strong>${op.error.code}</strong>: ${op.error.message}` : op.progress || ''}</td>
        </tr>`)}</tbody>
      </table>
      ${next && html`<button id="operations-more" onClick=${more}>Older</button>`}`}
  </section>`
}
