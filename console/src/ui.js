// Small pieces every page uses: htm bound to Preact, the API's errors shown as it says them,
// form fields that show their own error, times in the viewer's zone, confirmations.
import { h } from 'preact'
import htm from 'htm'

export const html = htm.bind(h)

/** An error from the API: its message and request id; a field's error is shown by its field. */
export function ErrorBox({ error }) {
  if (!error) return null
  return html`<div class="error" role="alert">
    <strong>${error.message}</strong>
    ${error.requestId && html`<span class="request-id">request ${error.requestId}</span>`}
  </div>`
}

export function Field({ label, name, error, children }) {
  const problem = error && error.fields && error.fields[name]
  return html`<label class="field">
    <span>${label}</span>
    ${children}
    ${problem && html`<span class="field-error" data-field=${name}>${problem}</span>`}
  </label>`
}

export function when(iso) {
  return iso ? new Date(iso).toLocaleString() : '—'
}

export function Loading() {
  return html`<p class="loading">Loading…</p>`
}

export function Empty({ children }) {
  return html`<p class="empty">${children}</p>`
}

/** A destructive action: asks first, then runs and reports a failure where the page shows errors. */
export async function confirmed(question, action) {
  if (!window.confirm(question)) return false
  await action()
  return true
}

/** A button whose click runs `action`, disabled while it runs. */
export function Action({ label, action, onError, danger, name }) {
  return html`<button class=${danger ? 'danger' : ''} data-action=${name || label}
    onClick=${async (e) => {
      const button = e.currentTarget
      button.disabled = true
      try { await action() } catch (err) { onError(err) } finally { button.disabled = false }
    }}>${label}</button>`
}

/** Whether a role may do what needs `needed` (viewer < editor < admin). */
export function may(role, needed) {
  const rank = { viewer: 0, editor: 1, admin: 2 }
  return role in rank && rank[role] >= rank[needed]
}
