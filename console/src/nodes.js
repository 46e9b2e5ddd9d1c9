// The cluster's nodes, for the server's operator (GET /v1/nodes answers no one else): each node's
// state, what it hosts and what it has, refreshed every few seconds.
import { useEffect, useState } from 'preact/hooks'
import { api } from './api.js'
import { Empty, ErrorBox, html, Loading, when } from './ui.js'

const GIB = 1024 * 1024 * 1024

function gib(bytes) {
  return `${(bytes / GIB).toFixed(bytes < 10 * GIB ? 1 : 0)} GiB`
}

export function Nodes() {
  const [nodes, setNodes] = useState(null)
  const [error, setError] = useState(null)
  useEffect(() => {
    let timer = null
    let stopped = false
    const tick = async () => {
      try {
        setNodes((await api('GET', '/nodes')).nodes)
        setError(null)
      } catch (err) { setError(err) }
      if (!stopped) timer = setTimeout(tick, 5000)
    }
    tick()
    return () => { stopped = true; clearTimeout(timer) }
  }, [])
  return html`<section>
    <header class="bar"><h2>Nodes</h2></header>
    <${ErrorBox} error=${error} />
    ${nodes === null ? (error ? null : html`<${Loading} />`) : nodes.length === 0 ? html`<${Empty}>No node.<//>` : html`
      <table class="list" id="nodes">
        <thead><tr><th>Node</th><th>State</th><th>Address</th><th>Computers</th><th>Databases</th>
          <th>Memory given / host</th><th>CPUs</th><th>Disk</th><th>Started</th><th>Lease until</th></tr></thead>
        <tbody>${nodes.map((n) => html`<tr key=${n.name} data-name=${n.name} data-state=${n.state}>
          <td><strong>${n.name}</strong></td><td><span class=${'state node-' + n.state}>${n.state}</span></td>
          <td><code>${n.address}</code></td><td>${n.hosted.computers}</td><td>${n.hosted.databases}</td>
          <td>${gib(n.hosted.computer_memory_bytes)} / ${gib(n.capacity.memory_bytes)}</td>
          <td>${n.capacity.cpus}</td><td>${gib(n.capacity.disk_bytes)}</td>
          <td>${when(n.started_at)}</td><td>${when(n.lease_until)}</td>
        </tr>`)}</tbody>
      </table>`}
  </section>`
}
