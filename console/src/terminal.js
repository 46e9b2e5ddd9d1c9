// A terminal on a computer: xterm.js over the exec route's WebSocket (the first text message starts
// the shell; keystrokes go as binary, resizes as text; output comes back as binary).
import { Terminal } from '@xterm/xterm'
import { FitAddon } from '@xterm/addon-fit'
import '@xterm/xterm/css/xterm.css'

export function openTerminal(element, computerId, onExit) {
  const term = new Terminal({ cursorBlink: true, fontSize: 14, convertEol: false })
  const fit = new FitAddon()
  term.loadAddon(fit)
  term.open(element)
  fit.fit()
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:'
  const socket = new WebSocket(`${scheme}//${location.host}/v1/computers/${encodeURIComponent(computerId)}/exec`)
  socket.binaryType = 'arraybuffer'
  const encoder = new TextEncoder()
  socket.onopen = () => {
    socket.send(JSON.stringify({ command: ['/bin/sh'], cols: term.cols, rows: term.rows }))
    term.focus()
  }
  socket.onmessage = (event) => {
    if (typeof event.data === 'string') {
      const message = JSON.parse(event.data)
      if (message.exit_code !== undefined) onExit(`exited with ${message.exit_code}`)
      if (message.error) onExit(message.error.message)
      return
    }
    term.write(new Uint8Array(event.data))
  }
  socket.onclose = () => onExit('disconnected')
  term.onData((data) => socket.readyState === WebSocket.OPEN && socket.send(encoder.encode(data)))
  term.onResize(({ cols, rows }) => socket.readyState === WebSocket.OPEN
    && socket.send(JSON.stringify({ resize: { cols, rows } })))
  const onWindowResize = () => fit.fit()
  window.addEventListener('resize', onWindowResize)
  return () => {
    window.removeEventListener('resize', onWindowResize)
    socket.close()
    term.dispose()
  }
}
