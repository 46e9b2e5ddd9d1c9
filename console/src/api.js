// The console's only way to the server: the public /v1 API, signed in by its HttpOnly cookie.
// Every change carries X-Hearth-Console (which a cross-site form cannot send) and creates an
// Idempotency-Key, as a script would.

export class ApiError extends Error {
  constructor(status, error) {
    super(error.message || `HTTP ${status}`)
    this.status = status
    this.code = error.code
    this.fields = (error.details && error.details.fields) || {}
    this.requestId = error.request_id
  }
}

export async function api(method, path, body, extraHeaders = {}) {
  const headers = { ...extraHeaders }
  if (method !== 'GET' && method !== 'HEAD') {
    headers['X-Hearth-Console'] = '1'
    if (method === 'POST') headers['Idempotency-Key'] = crypto.randomUUID()
  }
  let payload
  if (body instanceof Blob || body instanceof ArrayBuffer) {
    payload = body
    headers['Content-Type'] = headers['Content-Type'] || 'application/octet-stream'
  } else if (body !== undefined) {
    payload = JSON.stringify(body)
    headers['Content-Type'] = 'application/json'
  }
  const response = await fetch('/v1' + path, { method, headers, body: payload, credentials: 'same-origin' })
  const text = await response.text()
  const json = text && (response.headers.get('content-type') || '').startsWith('application/json') ? JSON.parse(text) : null
  if (!response.ok) {
    throw new ApiError(response.status, (json && json.error) || { message: text || response.statusText })
  }
  return json
}

/** Every item of a paged list (at most `max`). */
export async function all(path, noun, max = 5000) {
  const items = []
  let cursor = null
  do {
    const sep = path.includes('?') ? '&' : '?'
    const page = await api('GET', path + sep + 'limit=100' + (cursor ? '&cursor=' + encodeURIComponent(cursor) : ''))
    items.push(...page[noun])
    cursor = page.has_more ? page.next_cursor : null
  } while (cursor && items.length < max)
  return items
}

export const enc = encodeURIComponent
