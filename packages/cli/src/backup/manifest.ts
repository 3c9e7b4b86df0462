import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { SignedTreeHead } from '@waybill/merkle'
import type { AuditKeyDocument } from '@waybill/projector'

/** The manifest's format; a backup directory of another format is refused. */
export const BACKUP_FORMAT = 'waybill-backup/v1'
/** The latest manifest: what a backup writes last, so a backup cut short leaves the one before in force. */
export const LATEST_MANIFEST = 'backup.json'

/** A file of events of the log, from position `from` to `to` (docs/operations.md#backup-and-restore). */
export interface SegmentEntry {
  /** Relative to the backup directory. */
  readonly file: string
  readonly from: string
  readonly to: string
  readonly events: number
  /** Of the file's bytes. */
  readonly sha256: string
}

/** What one backup into a directory holds: everything up to `log.position`. */
export interface Manifest {
  readonly format: typeof BACKUP_FORMAT
  /** 1 for the first backup into the directory, one more for each after it. */
  readonly sequence: number
  readonly waybill_version: string
  /** When the backup began and ended. */
  readonly started_at: string
  readonly finished_at: string
  /**
   * `sqlite`: the events are in the backup (`segments`). `eventstoredb`: they are in the cluster,
   * backed up by its own procedure; the backup holds the heads, keys and images, and `segments` is empty.
   */
  readonly store: 'sqlite' | 'eventstoredb'
  readonly log: {
    /** The log's head when the backup began (`<commit>/<prepare>` on EventStoreDB): every event up to it is covered. */
    readonly position: string
    readonly events: number
    readonly order_events: number
    /** The hash of the event at `position` (null for an empty log): the next backup checks it is the same log. */
    readonly last_hash: string | null
  }
  /** The manifest before it in the directory (its sequence and the sha256 of its file), null for the first. */
  readonly previous: { readonly sequence: number; readonly sha256: string } | null
  /** Every segment up to `log.position`, in order. */
  readonly segments: readonly SegmentEntry[]
  readonly images: { readonly total: number; readonly added: number }
  /** The heads file as it was when the backup began (SQLite's online backup), and its latest head. */
  readonly heads: { readonly file: string; readonly sha256: string; readonly count: number; readonly latest: SignedTreeHead | null }
  /** The public keys that verify the heads; never a private key. */
  readonly keys: readonly AuditKeyDocument[]
}

/** The file each backup's manifest is kept in, beside the latest one. */
export function manifestFile(sequence: number): string {
  return join('manifests', `${String(sequence).padStart(6, '0')}.json`)
}

export function sha256Of(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex')
}

/** The Waybill version that wrote a backup: the cli package's. */
export function waybillVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
  return manifest.version
}

/** The latest manifest of `dir`, null when the directory holds no backup, or why it cannot be used. */
export async function readLatestManifest(dir: string): Promise<Manifest | null> {
  let text: string
  try {
    text = await readFile(join(dir, LATEST_MANIFEST), 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw error
  }
  const manifest = JSON.parse(text) as Partial<Manifest>
  if (manifest.format !== BACKUP_FORMAT) throw new Error(`${join(dir, LATEST_MANIFEST)} is not a Waybill backup manifest (${String(manifest.format)}, expected ${BACKUP_FORMAT})`)
  return manifest as Manifest
}
