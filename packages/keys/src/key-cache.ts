import { comparePositions, type EventStore, type Position } from '@waybill/event-store'
import { foldKeyStream } from './key-decider.js'
import { asKeyEvent, KEY_CATEGORY, keyStreamName } from './key-events.js'
import type { KeyRecord } from './key-state.js'

/** Records kept at most; past it the cache starts again empty (a flood of unknown ids cannot grow it). */
const MAX_ENTRIES = 10_000

/**
 * Key records as their streams last folded, for `KeyRing.authenticate`. The invariant
 * (docs/design.md#key-cache): a key revoked, rotated or changed by any process is refused on
 * every request that starts after the change was acknowledged. So every lookup first reads the
 * store's change counter for key streams (`categoryHead('apikey')`: the position of the last key
 * event, whoever appended it), and the whole cache is dropped when it moved. The counter is read
 * before the stream, and a record is kept only if no other lookup saw the counter move meanwhile,
 * so no record is ever older than the counter it is filed under. A store without `categoryHead`
 * (EventStoreDB) is not cached: every lookup reads the key stream from the leader.
 *
 * Only the stored facts are cached, never a decision: expiry and grace are judged per request.
 */
export class KeyCache {
  readonly #records = new Map<string, KeyRecord | null>()
  #head: Position | null = null

  constructor(private readonly store: EventStore) {}

  /** The key's record as of now, or null when no such key was issued. */
  async record(keyId: string): Promise<KeyRecord | null> {
    if (this.store.categoryHead === undefined) return this.#read(keyId)
    const head = await this.store.categoryHead(KEY_CATEGORY)
    if (!samePosition(head, this.#head)) {
      this.#records.clear()
      this.#head = head
    }
    const cached = this.#records.get(keyId)
    if (cached !== undefined) return cached
    const record = await this.#read(keyId)
    // Another lookup moved the counter while this one read: the record may predate it.
    if (samePosition(head, this.#head)) {
      if (this.#records.size >= MAX_ENTRIES) this.#records.clear()
      this.#records.set(keyId, record)
    }
    return record
  }

  async #read(keyId: string): Promise<KeyRecord | null> {
    return foldKeyStream((await this.store.readStream(keyStreamName(keyId))).map(asKeyEvent)).record
  }
}

function samePosition(a: Position | null, b: Position | null): boolean {
  return a === null || b === null ? a === b : comparePositions(a, b) === 0
}
