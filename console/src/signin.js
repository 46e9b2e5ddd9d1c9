// Sign-in: a code mailed to an email address (the same flow as hearth auth login), an API key or a
// key file (signed here, see keyfile.js).
// Either way the server answers with an HttpOnly cookie; no token is ever kept by the page.
import { useState } from 'preact/hooks'
import { api } from './api.js'
import { assertion } from './keyfile.js'
import { ErrorBox, Field, html } from './ui.js'

export function SignIn({ onSignedIn }) {
  const [email, setEmail] = useState('')
  const [code, setCode] = useState('')
  const [apiKey, setApiKey] = useState('')
  const [sent, setSent] = useState(false)
  const [error, setError] = useState(null)
  const run = (work) => async (e) => {
    e.preventDefault()
    setError(null)
    try { await work() } catch (err) { setError(err) }
  }
  const start = run(async () => {
    await api('POST', '/auth/email/start', { email })
    setSent(true)
  })
  const verify = run(async () => onSignedIn(await api('POST', '/auth/console', { email, code })))
  const withKey = run(async () => onSignedIn(await api('POST', '/auth/console', { api_key: apiKey })))
  const withFile = run(async () => {
    const file = document.getElementById('key-file').files[0]
    if (!file) throw new Error('choose a key file')
    onSignedIn(await api('POST', '/auth/console', { assertion: await assertion(await file.text()) }))
  })
  return html`<main class="signin">
    <h1>Sign in to Hearth</h1>
    <${ErrorBox} error=${error} />
    <form id="email-form" onSubmit=${sent ? verify : start}>
      <${Field} label="Email" name="email" error=${error}>
        <input id="email" type="email" required value=${email} onInput=${(e) => setEmail(e.target.value)} />
      <//>
      ${sent && html`<${Field} label="Code from the mail" name="code" error=${error}>
        <input id="code" inputmode="numeric" autocomplete="one-time-code" required value=${code}
          onInput=${(e) => setCode(e.target.value)} />
      <//>`}
      <button id="email-submit" type="submit">${sent ? 'Sign in' : 'Mail me a code'}</button>
    </form>
    <details>
      <summary>Sign in with an API key</summary>
      <form id="key-form" onSubmit=${withKey}>
        <${Field} label="API key" name="api_key" error=${error}>
          <input id="api-key" type="password" required value=${apiKey} onInput=${(e) => setApiKey(e.target.value)} />
        <//>
        <button id="key-submit" type="submit">Sign in</button>
      </form>
    </details>
    <details>
      <summary>Sign in with a key file</summary>
      <form id="key-file-form" onSubmit=${withFile}>
        <${Field} label="Key file (its private key stays in this browser)" name="assertion" error=${error}>
          <input id="key-file" type="file" accept=".json,application/json" required />
        <//>
        <button id="key-file-submit" type="submit">Sign in</button>
      </form>
    </details>
  </main>`
}
