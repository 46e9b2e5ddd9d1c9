// Signing in with a key file, as `hearth` and the SDKs do: the page signs a short RFC 7523
// assertion with the file's private key (WebCrypto; the key never leaves the browser) and the
// server trades it for the console's cookie. ES256 for EC P-256 keys, RS256 for RSA keys.

const b64url = (bytes) => btoa(String.fromCharCode(...new Uint8Array(bytes)))
  .replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
const text = (value) => b64url(new TextEncoder().encode(JSON.stringify(value)))

function pkcs8(pem) {
  const body = pem.replace(/-----(BEGIN|END) PRIVATE KEY-----/g, '').replace(/\s+/g, '')
  return Uint8Array.from(atob(body), (c) => c.charCodeAt(0))
}

async function importKey(der) {
  try {
    const key = await crypto.subtle.importKey('pkcs8', der, { name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign'])
    return { key, alg: 'ES256', params: { name: 'ECDSA', hash: 'SHA-256' } }
  } catch {
    const key = await crypto.subtle.importKey('pkcs8', der, { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, false, ['sign'])
    return { key, alg: 'RS256', params: { name: 'RSASSA-PKCS1-v1_5' } }
  }
}

/** The assertion a key file signs now (valid five minutes, used once); an Error saying what is wrong with the file. */
export async function assertion(fileText) {
  let file
  try { file = JSON.parse(fileText) } catch { throw new Error('this is not a key file (not JSON)') }
  for (const field of ['subject', 'key_id', 'audience']) {
    if (typeof file[field] !== 'string') throw new Error(`this is not a key file (no ${field})`)
  }
  if (!file.private_key) throw new Error('this key file holds no private key (its key was brought by its owner): add it first')
  if (!crypto.subtle) throw new Error('the browser signs only on https or localhost')
  let signer
  try { signer = await importKey(pkcs8(file.private_key)) } catch { throw new Error('the key file\'s private key is not a PKCS#8 EC P-256 or RSA key') }
  const now = Math.floor(Date.now() / 1000)
  const head = text({ alg: signer.alg, typ: 'JWT', kid: file.key_id })
  const claims = text({ iss: file.subject, sub: file.subject, aud: file.audience, iat: now, exp: now + 300, jti: crypto.randomUUID() })
  const signature = await crypto.subtle.sign(signer.params, signer.key, new TextEncoder().encode(`${head}.${claims}`))
  return `${head}.${claims}.${b64url(signature)}`
}
