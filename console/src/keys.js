// Keyboard navigation, as in the consoles people know: "g" then a letter goes to a page, "/"
// focuses the page's search or first field, "?" lists the keys. Keys typed into a field are the
// field's own.
import { useEffect, useState } from 'preact/hooks'
import { html } from './ui.js'

const PAGES = { c: 'computers', d: 'databases', o: 'operations', w: 'settings' }

const typing = (target) => target.closest && target.closest('input, textarea, select, [contenteditable], .xterm')

export function useKeys(ws, go) {
  const [help, setHelp] = useState(false)
  useEffect(() => {
    let pending = false
    const onKey = (e) => {
      if (e.ctrlKey || e.metaKey || e.altKey || typing(e.target)) return
      if (pending && PAGES[e.key] && ws) {
        go(`#/w/${ws}/${PAGES[e.key]}`)
      } else if (e.key === '/') {
        const field = document.querySelector('main input:not([type=file]), main textarea')
        if (field) { e.preventDefault(); field.focus() }
      } else if (e.key === '?') {
        setHelp((shown) => !shown)
      } else if (e.key === 'Escape') {
        setHelp(false)
      }
      pending = e.key === 'g'
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [ws])
  return help && html`<aside class="keys" id="keys-help" role="dialog" aria-label="Keyboard shortcuts">
    <h3>Keys</h3>
    <dl>
      <dt>g c</dt><dd>Computers</dd><dt>g d</dt><dd>Databases</dd><dt>g o</dt><dd>Operations</dd>
      <dt>g w</dt><dd>Workspace</dd><dt>/</dt><dd>Search, or the page's first field</dd>
      <dt>Ctrl+Enter</dt><dd>Run the SQL editor's statement</dd><dt>?</dt><dd>This list (Esc closes)</dd>
    </dl>
  </aside>`
}
