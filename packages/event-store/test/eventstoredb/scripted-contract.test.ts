import t from 'tap'
import { eventStoreOn } from '../../src/eventstoredb/store.js'
import { eventStoreContract } from '../contract.js'
import { ScriptedServer } from './scripted-server.js'

// The shared contract on the EventStoreDB adapter, against the scripted stand-in for a server
// (scripted-server.ts), which plays the server's idempotency rules, its positions and its
// lowercased ids. The same suite runs against a real cluster in contract.test.ts.
const server = new ScriptedServer()
const open = async (): Promise<ReturnType<typeof eventStoreOn>> => eventStoreOn(server.client(), { readTimeoutMs: 2_000, location: 'scripted' })
await eventStoreContract(t, { name: 'eventstoredb adapter on a scripted server', open, reopen: open })
