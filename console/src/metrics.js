// A computer's CPU, memory and disk, and a database's sessions, transactions and size, over the
// last hour they were awake: the server's samples (GET .../metrics/history, one every 5 s for a
// computer and 10 s for a database), drawn by uPlot and refreshed as often.
import { useEffect, useRef, useState } from 'preact/hooks'
import uPlot from 'uplot'
import 'uplot/dist/uPlot.min.css'
import { api, enc } from './api.js'
import { Empty, ErrorBox, html } from './ui.js'

const COMPUTER = [
  { id: 'cpu', title: 'CPU (%)', value: (s) => s.cpu_percent },
  { id: 'memory', title: 'Memory (MB)', value: (s) => s.memory_bytes / 1048576 },
  { id: 'disk', title: 'Disk used (MB)', value: (s) => s.disk_used_bytes / 1048576 },
]

const DATABASE = [
  { id: 'connections', title: 'Sessions', value: (s) => s.connections },
  { id: 'transactions', title: 'Transactions / s', value: (s) => s.transactions_per_second },
  { id: 'size', title: 'Size (MB)', value: (s) => s.size_bytes / 1048576 },
]

function Chart({ chart, samples }) {
  const box = useRef(null)
  const plot = useRef(null)
  useEffect(() => {
    const data = [samples.map((s) => Date.parse(s.at) / 1000), samples.map(chart.value)]
    if (!plot.current) {
      plot.current = new uPlot({ title: chart.title, width: Math.min(box.current.clientWidth || 560, 560), height: 180,
        // Always the last hour, however few samples there are yet.
        scales: { x: { time: true, range: () => { const now = Date.now() / 1000; return [now - 3600, now] } } },
        series: [{}, { label: chart.title, stroke: '#c2410c', fill: 'rgba(194,65,12,.08)', spanGaps: false }],
        axes: [{}, { size: 60 }] }, data, box.current)
    } else {
      plot.current.setData(data)
    }
  }, [samples])
  useEffect(() => () => plot.current && plot.current.destroy(), [])
  return html`<div class="chart" id=${'chart-' + chart.id} ref=${box}></div>`
}

export function Metrics({ id }) {
  return html`<${History} path=${`/computers/${enc(id)}/metrics/history`} charts=${COMPUTER} every=${5000}
    none="No samples yet: one comes every 5 seconds while the computer is awake." />`
}

export function DatabaseMetrics({ id }) {
  return html`<${History} path=${`/databases/${enc(id)}/metrics/history`} charts=${DATABASE} every=${10000}
    none="No samples yet: one comes every 10 seconds while the database is awake." />`
}

function History({ path, charts, every, none }) {
  const [samples, setSamples] = useState(null)
  const [error, setError] = useState(null)
  useEffect(() => {
    const load = () => api('GET', path).then((r) => setSamples(r.samples), setError)
    load()
    const timer = setInterval(load, every)
    return () => clearInterval(timer)
  }, [path])
  if (error) return html`<${ErrorBox} error=${error} />`
  if (!samples) return null
  if (samples.length === 0) return html`<${Empty}>${none}<//>`
  return html`<div class="charts">${charts.map((c) => html`<${Chart} key=${c.id} chart=${c} samples=${samples} />`)}</div>`
}
