import { randomUUID } from 'node:crypto'
import { WrongExpectedVersionError, type RecordedEvent, type StreamStore } from '@waybill/event-store'
import { decide } from './decide.js'
import type { KeyCommand } from './key-commands.js'
import { foldKeyStream } from './key-decider.js'
import { keyErrorMessage, KeyRingError } from './key-errors.js'
import { asKeyEvent, keyStreamName, keyUseStreamName } from './key-events.js'
import type { KeyStreamState } from './key-state.js'
import { lastEventOf } from './stream-tail.js'

/** Attempts at recording one use while other instances record the same key's uses. */
const USE_ATTEMPTS = 3

/** The key stream folded with the last event of the use stream: the record with its last use. */
export async function readWithLastUse(store: StreamStore, keyId: string): Promise<{ state: KeyStreamState; lastUse: RecordedEvent | null }> {
  const [events, lastUse] = await Promise.all([store.readStream(keyStreamName(keyId)), lastEventOf(store, keyUseStreamName(keyId))])
  return { state: foldKeyStream([...events, ...(lastUse === null ? [] : [lastUse])].map(asKeyEvent)), lastUse }
}

/**
 * Records that `keyId` was used at `usedAt`, unless a use within the minute is recorded already.
 * The key decider decides on the key's record and its last recorded use, and the event goes to
 * the use stream, not the key stream: `handleCommand` reads and writes one stream, so this is its
 * loop over two. Another instance recording the same key meanwhile makes the append fail its
 * expected revision; deciding again then usually finds that use recent enough.
 */
export async function recordUse(store: StreamStore, keyId: string, usedAt: Date): Promise<void> {
  const command: KeyCommand = { type: 'RecordUse', eventId: randomUUID(), data: { key_id: keyId, used_at: usedAt.toISOString() } }
  for (let attempt = 1; ; attempt += 1) {
    const { state, lastUse } = await readWithLastUse(store, keyId)
    const decision = decide(command, state)
    if (decision.outcome === 'already_applied') return
    if (decision.outcome === 'rejected') throw new KeyRingError(decision.error, keyErrorMessage(decision.error, keyId))
    const events = decision.events.map((event) => ({ id: event.id, type: event.type, data: event.data as unknown as Record<string, unknown> }))
    try {
      await store.appendToStream(keyUseStreamName(keyId), events, { expectedRevision: lastUse?.revision ?? 'no_stream' })
      return
    } catch (error) {
      if (!(error instanceof WrongExpectedVersionError) || attempt >= USE_ATTEMPTS) throw error
    }
  }
}
