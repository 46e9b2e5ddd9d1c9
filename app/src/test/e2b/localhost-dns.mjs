// Names under .localhost resolve to the loopback address, as curl and browsers resolve them (RFC 6761)
// and Node.js does not: the SDK reaches https://api.DOMAIN and https://49983-ID.DOMAIN with DOMAIN
// under .localhost and no DNS server. Loaded with `node --import`; the SDK itself is unchanged.
import dns from 'node:dns'

const lookup = dns.lookup
dns.lookup = function (host, options, callback) {
  const name = typeof host === 'string' && host.endsWith('.localhost') ? 'localhost' : host
  return lookup.call(this, name, options, callback)
}
