// The EventStoreDB users Waybill runs as, each with the least it needs (deploy/README.md,
// "EventStoreDB users"), made by compose's `esdb-users` and Kubernetes' Job `waybill-esdb-users`:
//   waybill            reads and appends to the order and key streams and reads `$all`: the API
//                      processes (ingress, reader) and `waybill keys`/`store check`. It may not
//                      delete or truncate a stream, nor change a stream's metadata ($d, $mw).
//   waybill-projector  reads those streams and `$all`, writes nothing: the projector and backups.
// Every other right (and every system stream) is left to `$admins`. Runs again harmlessly: an
// existing user gets the password given, the ACLs are written again.
//
// Input, from the environment only (never the command line, which `ps` shows):
//   ESDB_URL                 the cluster without credentials: esdb://host:2113,…?tls=true&tlsCAFile=…
//   ESDB_ADMIN_PASSWORD      the admin's password (or ESDB_ADMIN_PASSWORD_FILE: a file holding it)
//   ESDB_WAYBILL_PASSWORD    the password to give `waybill` (or …_FILE)
//   ESDB_PROJECTOR_PASSWORD  the password to give `waybill-projector` (or …_FILE)
import { readFileSync } from 'node:fs'
import { request } from 'node:https'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'

export const WRITER = 'waybill'
export const READER = 'waybill-projector'
const ADMINS = '$admins'

/** The default ACLs (the `$settings` stream): what every stream without an ACL of its own allows whom. */
export const DEFAULT_ACL = {
  $userStreamAcl: { $r: [WRITER, READER, ADMINS], $w: [WRITER, ADMINS], $d: ADMINS, $mr: ADMINS, $mw: ADMINS },
  $systemStreamAcl: { $r: ADMINS, $w: ADMINS, $d: ADMINS, $mr: ADMINS, $mw: ADMINS },
}
/** Who may read `$all` (the projector follows it; `/readyz` and every start read its head). */
export const ALL_READERS = [WRITER, READER, ADMINS]

function secret(name) {
  const file = process.env[`${name}_FILE`]
  const value = (file ? readFileSync(file, 'utf8') : process.env[name] ?? '').trim()
  if (value === '') throw new Error(`${name} (or ${name}_FILE) is not set`)
  return value
}

/** One call to the cluster's HTTP API (users), as admin, trusting the cluster's CA only. */
function http(base, ca, admin, method, path, body) {
  return new Promise((resolve, reject) => {
    const payload = Buffer.from(JSON.stringify(body))
    const req = request(new URL(path, base), {
      method, ca, timeout: 10_000,
      headers: { authorization: `Basic ${Buffer.from(`admin:${admin}`).toString('base64')}`, 'content-type': 'application/json', 'content-length': payload.length },
    }, (res) => {
      res.resume()
      res.on('end', () => resolve(res.statusCode))
    })
    req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer in 10 s`)))
    req.on('error', reject)
    req.end(payload)
  })
}

async function upsertUser(base, ca, admin, login, password) {
  const created = await http(base, ca, admin, 'POST', '/users/', { loginName: login, fullName: `Waybill (${login})`, groups: [], password })
  if (created === 201) return 'created'
  if (created !== 409) throw new Error(`creating user ${login}: HTTP ${created}`)
  const reset = await http(base, ca, admin, 'POST', `/users/${login}/command/reset-password`, { newPassword: password })
  if (reset !== 200) throw new Error(`resetting the password of ${login}: HTTP ${reset}`)
  return 'exists; password set'
}

async function main() {
  const url = secret('ESDB_URL')
  const admin = secret('ESDB_ADMIN_PASSWORD')
  const passwords = { [WRITER]: secret('ESDB_WAYBILL_PASSWORD'), [READER]: secret('ESDB_PROJECTOR_PASSWORD') }
  const parsed = new URL(url.replace(/^esdb(\+discover)?:/, 'https:'))
  const caFile = parsed.searchParams.get('tlsCAFile')
  if (parsed.username !== '' || caFile === null) throw new Error('ESDB_URL: no credentials in it, and tlsCAFile=<the cluster CA>')
  const base = `https://${parsed.host.split(',')[0]}`
  const ca = readFileSync(caFile)
  // The HTTP API forwards user changes to the leader; the first node answering is enough.
  for (const [login, password] of Object.entries(passwords)) {
    process.stdout.write(`esdb-users: ${login}: ${await upsertUser(base, ca, admin, login, password)}\n`)
  }
  // ACLs are stream metadata and events, written over gRPC with the client the packages use.
  const require = createRequire(new URL('../packages/event-store/package.json', import.meta.url))
  const { EventStoreDBClient, jsonEvent } = require('@eventstore/db-client')
  const client = EventStoreDBClient.connectionString(url)
  const credentials = { username: 'admin', password: admin }
  try {
    await client.appendToStream('$settings', jsonEvent({ type: 'update-default-acl', data: DEFAULT_ACL }), { credentials })
    await client.setStreamMetadata('$all', { acl: { readRoles: ALL_READERS } }, { credentials })
  } finally {
    await client.dispose()
  }
  process.stdout.write(`esdb-users: default ACLs set (${WRITER} writes, ${READER} reads, only admins delete or change metadata); $all readable by ${ALL_READERS.join(', ')}\n`)
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await main().catch((error) => {
    process.stderr.write(`esdb-users: ${error instanceof Error ? error.message : String(error)}\n`)
    process.exitCode = 1
  })
}
