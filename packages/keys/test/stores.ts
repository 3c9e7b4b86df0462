import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { StoreUnavailableError, type EventStore } from '@waybill/event-store'

interface Teardown {
  teardown(fn: () => unknown): void
}

/** A temporary directory, removed after the test. */
export async function tempDir(t: Teardown): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'waybill-keys-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  return dir
}

/**
 * The store, except that appends after the first `allowed` fail as a full disk would: a process
 * that stops half-way through a rotation, seen from the store.
 */
export function failingAppendsAfter(store: EventStore, allowed: number): EventStore {
  let appends = 0
  return {
    readStream: (name, options) => store.readStream(name, options),
    readAll: (options) => store.readAll(options),
    headPosition: () => store.headPosition(),
    close: () => store.close(),
    appendToStream: async (name, events, options) => {
      appends += 1
      if (appends > allowed) throw new StoreUnavailableError('disk full (test)')
      return store.appendToStream(name, events, options)
    },
  }
}
