import { createRequire } from 'node:module'
import t from 'tap'
import { connectionStringProblem } from '../../src/eventstoredb/connection-string.js'
import { serverVersionProblem } from '../../src/eventstoredb/server-version.js'
import { fromClientEvent, toClientEvent } from '../../src/eventstoredb/event-codec.js'

// Each refusal is shown against the client's own parser first: what it would make of the string.
const require = createRequire(import.meta.url)
const { parseConnectionString } = require('@eventstore/db-client/dist/Client/parseConnectionString.js') as {
  parseConnectionString: (text: string) => { dnsDiscover: boolean; hosts: Array<{ address: string; port: number }>; defaultCredentials?: { username: string; password: string }; throwOnAppendFailure?: boolean }
}
const { ServerFeatures } = require('@eventstore/db-client/dist/Client/ServerFeatures.js') as {
  ServerFeatures: new (error: Error | null, methods?: { getEventStoreServerVersion(): string; getMethodsList(): [] }) => { serverVersion: string }
}

t.test('esdb+discover:// with several hosts: the client keeps the first only, so it is refused', async (t) => {
  const text = 'esdb+discover://esdb-node1:2113,esdb-node2:2113,esdb-node3:2113?tls=true'
  const parsed = parseConnectionString(text)
  t.equal(parsed.dnsDiscover, true)
  t.equal(parsed.hosts.length, 3, 'the parser keeps three hosts; the client constructor then uses hosts[0] alone')
  t.match(connectionStringProblem(text), /uses only the first of 3 hosts; list the nodes as esdb:\/\/esdb-node1:2113,esdb-node2:2113,esdb-node3:2113/)
  t.equal(connectionStringProblem('esdb://esdb-node1:2113,esdb-node2:2113,esdb-node3:2113?tls=true&nodePreference=leader'), null, 'the seed list: gossip over every node')
  t.equal(connectionStringProblem('esdb+discover://eventstoredb.waybill.svc.cluster.local:2113?tls=true'), null, 'one DNS name for every node')
})

t.test('dnsDiscover in a query is refused: honoured in one spelling only, and one host only', async (t) => {
  t.equal(parseConnectionString('esdb://a:2113,b:2113?dnsDiscover=true').dnsDiscover, true, 'exact spelling: discovery of hosts[0]')
  t.equal(parseConnectionString('esdb://a:2113,b:2113?DnsDiscover=true').dnsDiscover, false, 'another spelling: ignored (with the string printed)')
  for (const text of ['esdb://a:2113,b:2113?dnsDiscover=true', 'esdb://a:2113?DnsDiscover=true', 'esdb://a:2113?dns_discover=false']) {
    t.match(connectionStringProblem(text), /is not supported: write esdb\+discover:\/\//, text)
  }
})

t.test('throwOnAppendFailure=false is refused: a conflict would resolve as a success', async (t) => {
  t.equal(parseConnectionString('esdb://a:2113?throwOnAppendFailure=false').throwOnAppendFailure, false)
  t.match(connectionStringProblem('esdb://a:2113?throwOnAppendFailure=false'), /throwOnAppendFailure must stay true/)
  t.match(connectionStringProblem('esdb://a:2113?ThrowOnAppendFailure=false'), /throwOnAppendFailure must stay true/)
  t.equal(connectionStringProblem('esdb://a:2113?throwOnAppendFailure=true'), null)
})

t.test('a password with ":", "@" or "%" must be percent-encoded; encoded, it reads back exactly', async (t) => {
  const password = 'p:ss@w%rd/?#'
  t.equal(parseConnectionString('esdb://waybill:p:ss@db:2113').defaultCredentials?.password, 'p', '":" cuts the password short')
  t.same(parseConnectionString('esdb://waybill:p@ss@db:2113').hosts[0]?.address, 'ss@db', '"@" spills into the host')
  t.throws(() => parseConnectionString('esdb://waybill:50%off@db:2113'), URIError, 'a stray "%" throws')
  for (const raw of ['esdb://waybill:p:ss@db:2113', 'esdb://waybill:p@ss@db:2113', 'esdb://waybill:50%off@db:2113']) {
    t.match(connectionStringProblem(raw), /percent-encode the user name and password/, raw)
  }
  const encoded = `esdb://waybill:${encodeURIComponent(password)}@db:2113?tls=true`
  t.equal(connectionStringProblem(encoded), null)
  t.same(parseConnectionString(encoded).defaultCredentials, { username: 'waybill', password }, 'the client decodes it exactly')
  t.same(parseConnectionString(encoded).hosts, [{ address: 'db', port: 2113 }])
})

t.test('unknown options and tlsVerifyCert=false stay refused', async (t) => {
  t.match(connectionStringProblem('esdb://a:2113?foo=bar'), /unknown option "foo"/)
  t.match(connectionStringProblem('esdb://a:2113?tlsVerifyCert=false'), /tlsVerifyCert=false is not supported/)
  t.equal(connectionStringProblem('esdb://a:2113?TLS=true&NodePreference=leader&tls-ca-file=/c.crt'), null, 'known options in any case')
})

t.test('servers before 22.6 (stream-read positions of 2^64-1) are refused by version', async (t) => {
  const reported = (version: string): string => new ServerFeatures(null, { getEventStoreServerVersion: () => version, getMethodsList: () => [] }).serverVersion
  t.equal(serverVersionProblem(reported('24.10.0')), null)
  t.equal(serverVersionProblem(reported('22.6.0.0')), null)
  t.equal(serverVersionProblem(reported('23.10.1')), null)
  t.match(serverVersionProblem(reported('22.4.0')), /the server is 22\.4\.0: EventStoreDB 22\.6 or later is needed/)
  t.match(serverVersionProblem(reported('21.10.9')), /22\.6 or later/)
  // What the client reports when the server does not know the features call (before 21.10).
  t.match(serverVersionProblem(new ServerFeatures(new Error('UNIMPLEMENTED')).serverVersion), /does not report its version/)
})

t.test('an event read with the position old servers send (2^64-1) is refused, not used', async (t) => {
  const sent = toClientEvent({ event: { id: '6f1c1d7e-4a0c-5b7e-9a51-0d1f7f2b7a01', type: 'A', data: { a: 1 } }, prevHash: null, hash: 'h' })
  const none = 2n ** 64n - 1n
  const recorded = { streamId: 's-1', id: sent.id, isJson: true as const, revision: 0n, type: 'A', created: new Date(0),
    data: sent.data as Record<string, unknown>, metadata: sent.metadata as Record<string, unknown>, position: { commit: none, prepare: none } }
  t.throws(() => fromClientEvent(recorded), /came without a position/)
})
