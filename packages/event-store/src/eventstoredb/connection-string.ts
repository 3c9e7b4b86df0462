/**
 * What @eventstore/db-client 6 would accept from a connection string but then get wrong, found
 * before the client sees the string. Each rule below is a way its parser reads a string
 * differently from what the operator meant, or prints the whole string (password included) on
 * the console. Returns the reason, or null when the string is safe to hand to the client.
 */
export function connectionStringProblem(connectionString: string): string | null {
  const text = connectionString.trim()
  const scheme = /^([a-z+]+):\/\//i.exec(text)
  if (scheme === null) return null // The client's own parser reports a missing scheme.
  const rest = text.slice(scheme[0].length)
  return credentialsProblem(rest) ?? optionsProblem(rest) ?? hostsProblem(scheme[1]?.toLowerCase() ?? '', rest)
}

/**
 * The client takes the credentials as `[^:]+:[^@]+` before the first `@`, splits them at the
 * first `:` and percent-decodes each half: a raw `:` cuts the password short, a raw `@` ends it
 * early and spills the rest into the host list, a stray `%` throws URIError. Percent-encoded
 * (encodeURIComponent), every password reads back exactly.
 */
function credentialsProblem(rest: string): string | null {
  const at = rest.lastIndexOf('@')
  if (at < 0) return null
  const userinfo = rest.slice(0, at)
  const advice = 'percent-encode the user name and password (node -p "encodeURIComponent(process.argv[1])" \'<password>\')'
  if (!/^[^:@]+:[^:@]+$/.test(userinfo)) return `the credentials must be <user>:<password> with no raw ":" or "@" inside either; ${advice}`
  for (const part of userinfo.split(':')) {
    try {
      decodeURIComponent(part)
    } catch {
      return `the credentials hold a "%" that is not a percent-escape; ${advice}`
    }
  }
  return null
}

/** The query options the client maps whatever their case, `-` and `_` (dnsDiscover is not among them). */
const CLIENT_OPTIONS = new Set([
  'connectionname', 'defaultdeadline', 'discoveryinterval', 'gossiptimeout', 'keepaliveinterval', 'keepalivetimeout',
  'maxdiscoverattempts', 'nodepreference', 'throwonappendfailure', 'tls', 'tlscafile', 'tlsverifycert', 'usercertfile',
  'userkeyfile',
])
const flat = (key: string): string => key.trim().toLowerCase().replace(/[_-]/g, '')

/**
 * Options the client would only warn about on the console, with the whole string: an unknown
 * key (ignored), `tlsVerifyCert=false` (unsupported, ignored). `dnsDiscover` is honoured only in
 * that exact spelling and then keeps one host only, so the scheme says it instead.
 * `throwOnAppendFailure=false` makes a conflicting append resolve as a success.
 */
function optionsProblem(rest: string): string | null {
  const query = rest.indexOf('?')
  if (query < 0) return null
  for (const pair of rest.slice(query + 1).split('&')) {
    const [key = '', value = ''] = pair.split('=')
    if (key.trim() === '') continue
    const option = flat(key)
    if (option === 'dnsdiscover') return `"${key}" is not supported: write esdb+discover:// for one DNS name that resolves to every node, or esdb://node1,node2,node3 for a seed list`
    if (!CLIENT_OPTIONS.has(option)) return `unknown option "${key}" (known: ${[...CLIENT_OPTIONS].join(', ')}, in any case)`
    if (option === 'tlsverifycert' && value.trim() === 'false') {
      return 'tlsVerifyCert=false is not supported by the client; trust the server\'s CA with tlsCAFile=<path> instead'
    }
    if (option === 'throwonappendfailure' && value.trim() !== 'true') {
      return 'throwOnAppendFailure must stay true: with false a conflicting append is reported as a success'
    }
  }
  return null
}

/**
 * With `esdb+discover://` the client keeps the first host only (it logs "More than one address
 * provided for discovery. Using first"), so while that node is down no start or reconnect
 * succeeds, however healthy the cluster.
 */
function hostsProblem(scheme: string, rest: string): string | null {
  if (scheme !== 'esdb+discover') return null
  const hosts = rest.slice(rest.lastIndexOf('@') + 1).split('?')[0]?.split(',').filter((host) => host.trim() !== '') ?? []
  if (hosts.length <= 1) return null
  return `esdb+discover:// uses only the first of ${hosts.length} hosts; list the nodes as esdb://${hosts.join(',')}?… (gossip over the seed list) or name one DNS entry that resolves to every node`
}
