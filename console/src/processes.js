// A computer's processes (the main one and those started in the background) and the output of the
// one picked, followed live: GET .../processes and .../processes/{pid}/output?follow=true (NDJSON).
import { useEffect, useState } from 'preact/hooks'
import { api, enc } from './api.js'
import { Empty, ErrorBox, html, Loading, when } from './ui.js'

/** Reads an NDJSON answer line by line as it arrives, until `stop` is called. */
function follow(path, onLine) {
  const abort = new AbortController()
  fetch('/v1' + path, { credentials: 'same-origin', signal: abort.signal }).then(async (response) => {
    const reader = response.body.getReader()
    const decoder = new TextDecoder()
    let pending = ''
    for (;;) {
      const { value, done } = await reader.read()
      if (done) break
      pending += decoder.decode(value, { stream: true })
      const lines = pending.split('\n')
      pending = lines.pop()
      lines.filter(Boolean).forEach((line) => onLine(JSON.parse(line)))
    }
  }).catch(() => {})
  return () => abort.abort()
}

export function Processes({ id }) {
  const [processes, setProcesses] = useState(null)
  const [picked, setPicked] = useState(null)
  const [error, setError] = useState(null)
  useEffect(() => {
    const load = () => api('GET', `/computers/${enc(id)}/processes`).then((r) => setProcesses(r.processes), setError)
    load()
    const timer = setInterval(load, 3000)
    return () => clearInterval(timer)
  }, [id])
  return html`<div>
    <${ErrorBox} error=${error} />
    ${processes === null ? html`<${Loading} />` : processes.length === 0 ? html`<${Empty}>No processes.<//>` : html`
      <table class="list" id="processes"><tbody>${processes.map((p) => html`<tr key=${p.pid} data-name=${p.tag || p.pid}>
        <td><a href="#" data-action="output" onClick=${(e) => { e.preventDefault(); setPicked(p.pid) }}>${p.tag || '(untagged)'}</a></td>
        <td>${p.pid}</td><td><code>${p.command.join(' ')}</code></td>
        <td>${p.state}${p.exit_code !== null ? ` (${p.exit_code})` : ''}</td><td>${when(p.started_at)}</td>
      </tr>`)}</tbody></table>`}
    ${picked !== null && html`<${Output} id=${id} pid=${picked} />`}
  </div>`
}

function Output({ id, pid }) {
  const [text, setText] = useState('')
  useEffect(() => {
    setText('')
    return follow(`/computers/${enc(id)}/processes/${pid}/output?follow=true`, (line) => {
      const part = line.stdout ?? line.stderr ?? (line.exit_code !== undefined ? `\n[exited with ${line.exit_code}]\n` : '')
      setText((t) => (t + part).slice(-200000))
    })
  }, [id, pid])
  return html`<pre class="output" id="process-output">${text}</pre>`
}
