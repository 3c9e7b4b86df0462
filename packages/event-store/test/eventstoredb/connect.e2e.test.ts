import { createServer } from 'node:net'
import type { Server, Socket } from 'node:net'
import t from 'tap'
import { StoreUnavailableError } from '../../src/errors.js'
import { redactConnectionString } from '../../src/eventstoredb/connect.js'
import { openEventStoreDbStore } from '../../src/eventstoredb/store.js'

// Starts a real TCP listener that accepts connections and never answers: the shape of a
// firewalled or wedged cluster, which is what must not hang start-up.
async function silentServer(t: { teardown(fn: () => Promise<void>): void }): Promise<number> {
  const sockets = new Set<Socket>()
  const server: Server = createServer((socket) => { sockets.add(socket); socket.on('error', () => undefined) })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => {
    for (const socket of sockets) socket.destroy()
    return new Promise<void>((resolve) => server.close(() => resolve()))
  })
  const address = server.address()
  if (address === null || typeof address === 'string') throw new Error('no port')
  return address.port
}

async function timeToFail(open: Promise<unknown>): Promise<{ error: unknown; ms: number }> {
  const started = Date.now()
  try {
    await open
  } catch (error) {
    return { error, ms: Date.now() - started }
  }
  throw new Error('opened a store that should not open')
}

t.test('a refused connection fails opening quickly and names the address', async (t) => {
  const { error, ms } = await timeToFail(openEventStoreDbStore({ connectionString: 'esdb://127.0.0.1:1?tls=false', connectTimeoutMs: 5_000 }))
  t.type(error, StoreUnavailableError)
  t.match((error as Error).message, /cannot open EventStoreDB at esdb:\/\/127\.0\.0\.1:1\?tls=false/)
  t.ok(ms < 5_000, `failed in ${ms} ms`)
})

t.test('a cluster that accepts but never answers fails within the timeout', async (t) => {
  const port = await silentServer(t)
  for (const connectionString of [`esdb://127.0.0.1:${port}?tls=false`, `esdb://127.0.0.1:${port}`]) {
    const { error, ms } = await timeToFail(openEventStoreDbStore({ connectionString, connectTimeoutMs: 800 }))
    t.type(error, StoreUnavailableError, connectionString)
    t.match((error as Error).message, /did not answer within 800 ms|cannot open EventStoreDB/)
    t.ok(ms >= 700 || /cannot open/.test((error as Error).message), `not before its time: ${ms} ms`)
    t.ok(ms < 5_000, `bounded: failed in ${ms} ms`)
  }
})

t.test('gossip over a seed list of an absent cluster is bounded too', async (t) => {
  const port = await silentServer(t)
  const { error, ms } = await timeToFail(openEventStoreDbStore({
    connectionString: `esdb://127.0.0.1:${port},127.0.0.1:1?tls=false`, connectTimeoutMs: 1_000,
  }))
  t.type(error, StoreUnavailableError)
  t.ok(ms < 5_000, `failed in ${ms} ms`)
})

t.test('a malformed connection string is refused with the variable named', async (t) => {
  const { error } = await timeToFail(openEventStoreDbStore({ connectionString: 'http://admin:secret@db:2113' }))
  t.notOk(error instanceof StoreUnavailableError, 'not a matter of retrying')
  t.match((error as Error).message, /EVENTSTORE_CONNECTION_STRING/)
  t.notMatch((error as Error).message, /secret/, 'the password is not printed')
})

t.test('options the client would only warn about (printing the password) are refused, redacted', async (t) => {
  const warned: unknown[] = []
  const warn = console.warn
  console.warn = (...args: unknown[]) => { warned.push(args) }
  t.teardown(() => { console.warn = warn })
  for (const [connectionString, pattern] of [
    ['esdb://admin:pw@127.0.0.1:1?tls=false&foo=bar', /unknown option "foo"/],
    ['esdb://admin:pw@127.0.0.1:1?tlsVerifyCert=false', /tlsVerifyCert=false is not supported/],
    ['esdb://admin:pw@127.0.0.1:1?nodePreference=nowhere', /is not a valid connection string/],
    ['esdb://admin:pw@127.0.0.1:1?DnsDiscover=true', /is not supported/],
    ['esdb://admin:p:w@127.0.0.1:1', /percent-encode/],
    ['esdb+discover://admin:pw@127.0.0.1:1,127.0.0.2:1', /uses only the first of 2 hosts/],
  ] as const) {
    const { error } = await timeToFail(openEventStoreDbStore({ connectionString }))
    t.match((error as Error).message, pattern, connectionString)
    t.notMatch((error as Error).message, /:pw@/, 'the password is not printed')
  }
  t.same(warned, [], 'nothing went to the console')
})

t.test('passwords are redacted from what is shown', async (t) => {
  t.equal(redactConnectionString('esdb+discover://admin:changeit@db1:2113,db2:2113?tls=true'), 'esdb+discover://admin:***@db1:2113,db2:2113?tls=true')
  t.equal(redactConnectionString('esdb://db:2113?tls=false'), 'esdb://db:2113?tls=false')
  t.equal(redactConnectionString('esdb://admin:p@ss/w@rd@db:2113?tls=false'), 'esdb://admin:***@db:2113?tls=false', 'a password with @ and /')
})
