import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { gunzipSync, gzipSync } from 'node:zlib'
import type { RecordedEvent } from '@waybill/event-store'
import { writeDurably } from './durable-file.js'
import { sha256Of, type SegmentEntry } from './manifest.js'

/** One event of a segment, as a JSON line: the event as the store recorded it. */
interface EventLine {
  readonly position: string
  readonly stream: string
  readonly revision: number
  readonly id: string
  readonly type: string
  readonly data: Readonly<Record<string, unknown>>
  readonly metadata: RecordedEvent['metadata']
  readonly hash: string
  readonly created_at: string
}

function lineOf(event: RecordedEvent): EventLine {
  return {
    position: String(event.position.commit), stream: event.streamName, revision: event.revision, id: event.id, type: event.type,
    data: event.data, metadata: event.metadata, hash: event.hash, created_at: event.createdAt.toISOString(),
  }
}

function eventOf(line: EventLine): RecordedEvent {
  const position = BigInt(line.position)
  return {
    streamName: line.stream, id: line.id, type: line.type, data: line.data, metadata: line.metadata, revision: line.revision,
    position: { commit: position, prepare: position }, hash: line.hash, createdAt: new Date(line.created_at),
  }
}

/**
 * Writes `events` (consecutive, in position order) as a segment of the backup in `dir`:
 * `events/<from>-<to>.jsonl.gz`, one JSON line per event, fsynced. Answers its manifest entry.
 */
export async function writeSegment(dir: string, events: readonly RecordedEvent[]): Promise<SegmentEntry> {
  const first = events[0]
  const last = events.at(-1)
  if (first === undefined || last === undefined) throw new RangeError('a segment holds at least one event')
  const name = (position: bigint): string => String(position).padStart(16, '0')
  const file = join('events', `${name(first.position.commit)}-${name(last.position.commit)}.jsonl.gz`)
  const bytes = gzipSync(events.map((event) => `${JSON.stringify(lineOf(event))}\n`).join(''))
  await writeDurably(join(dir, file), bytes)
  return { file, from: String(first.position.commit), to: String(last.position.commit), events: events.length, sha256: sha256Of(bytes) }
}

/** The events of a segment, once its bytes are checked against the manifest's sha256. */
export async function readSegment(dir: string, entry: SegmentEntry): Promise<RecordedEvent[]> {
  const bytes = await readFile(join(dir, entry.file))
  const actual = sha256Of(bytes)
  if (actual !== entry.sha256) throw new Error(`${entry.file} has changed since it was backed up (sha256 ${actual}, the manifest says ${entry.sha256})`)
  const lines = gunzipSync(bytes).toString('utf8').split('\n').filter((line) => line !== '')
  const events = lines.map((line) => eventOf(JSON.parse(line) as EventLine))
  if (events.length !== entry.events) throw new Error(`${entry.file} holds ${events.length} events, the manifest says ${entry.events}`)
  return events
}
