// A computer's CPU, memory and disk over the last hour it was awake: the server's samples (one every
// 5 s, GET .../metrics/history), drawn by uPlot and refreshed every 5 s.
import { useEffect, useRef, useState } from 'preact/hooks'
import uPlot from 'uplot'
import 'uplot/dist/uPlot.min.css'
import { api, enc } from './api.js'
import { Empty, ErrorBox, html } from './ui.js'

const CHARTS = [
  { id: 'cpu', title: 'CPU (%)', value: (s) => s.cpu_percent },
  { id: 'memory', title: 'Memory (MB)', value: (s) => s.memory_bytes / 1048576 },
  { id: 'disk', title: 'Disk used (MB)', value: (s) => s.disk_used_bytes / 1048576 },
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
  const [samples, setSamples] = useState(null)
  const [error, setError] = useState(null)
  useEffect(() => {
    const load = () => api('GET', `/computers/${enc(id)}/metrics/history`).then((r) => setSamples(r.samples), setError)
    load()
    const timer = setInterval(load, 5000)
    return () => clearInterval(timer)
  }, [id])
  if (error) return html`<${ErrorBox} error=${error} />`
  if (!samples) return null
  if (samples.length === 0) return html`<${Empty}>No samples yet: one comes every 5 seconds while the computer is awake.<//>`
  return html`<div class="charts">${CHARTS.map((c) => html`<${Chart} key=${c.id} chart=${c} samples=${samples} />`)}</div>`
}
