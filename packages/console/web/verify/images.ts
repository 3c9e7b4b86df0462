import { bytesToHex, subtleSha256 } from '@waybill/merkle/verify'
import type { HistoryEvent } from '../api.js'
import type { Verdict } from './verdict.js'

type ImageName = 'pod' | 'signature'

/** An image the order's history recorded: the latest event (by revision) that carries it, and the sha256 it gave. */
export interface RecordedImage {
  readonly which: ImageName
  readonly label: string
  readonly revision: number
  /** Null when that event's data gives no sha256 for it. */
  readonly sha256: string | null
  /**
   * Whether the sha256 is in the signed leaf itself (an event stored before sealing) or was opened
   * by the server from the event's sealed part (docs/personal-data.md#where-it-lives), which the
   * leaf commits to only sealed: then the check rests on the server's opening.
   */
  readonly inLeaf: boolean
}

export interface ImageFailure {
  readonly which: ImageName
  readonly revision: number
  readonly reason: string
}

const LABELS: Readonly<Record<ImageName, string>> = { pod: 'Proof of delivery', signature: 'Signature' }
const NAMES: Readonly<Record<ImageName, string>> = { pod: 'proof-of-delivery image', signature: 'signature image' }

const sha256Of = (value: unknown): string | null =>
  typeof value === 'object' && value !== null && 'sha256' in value && typeof value.sha256 === 'string' && /^[0-9a-f]{64}$/.test(value.sha256) ? value.sha256 : null

/**
 * The images to show and what each must hash to. An event stored before sealing has the sha256 in
 * its data, so in its signed leaf: checking the bytes against it carries the verdict over to the
 * image itself, which the server otherwise serves on its word (docs/audit.md#images). A sealed
 * event's data names the sealed blob; the sha256 of the image as sent is in its sealed part, as the
 * server opened it (`fields`). An erased order has no image to show.
 */
export function recordedImages(events: readonly HistoryEvent[]): RecordedImage[] {
  const byRevision = [...events].sort((a, b) => a.revision - b.revision)
  return (['pod', 'signature'] as const).flatMap((which) => {
    const event = byRevision.findLast((candidate) => candidate.data[which] !== undefined)
    const value = event?.data[which]
    if (event === undefined || value === null || event.erased) return []
    const inLeaf = sha256Of(value) !== null
    const opened = event.fields?.[which]
    return [{ which, label: LABELS[which], revision: event.revision, sha256: inLeaf ? sha256Of(value) : sha256Of(opened), inLeaf }]
  })
}

/** Null when `bytes` hash (SHA-256, WebCrypto) to what the image's event recorded; else why not. */
export async function checkImage(bytes: Uint8Array<ArrayBuffer>, image: RecordedImage): Promise<ImageFailure | null> {
  const name = NAMES[image.which]
  if (image.sha256 === null) return { which: image.which, revision: image.revision, reason: `revision ${image.revision} records no sha256 for the ${name}` }
  const actual = bytesToHex(await subtleSha256(bytes))
  if (actual === image.sha256) return null
  return {
    which: image.which, revision: image.revision,
    reason: `the ${name} the server sent has sha256 ${actual.slice(0, 16)}…, not the ${image.sha256.slice(0, 16)}… that revision ${image.revision} recorded`,
  }
}

/** An image that is not what its event recorded fails the order, whatever the log says; an earlier failure stays the one named. */
export function withImageFailures(verdict: Verdict | null, failures: readonly ImageFailure[]): Verdict | null {
  const first = failures[0]
  if (first === undefined || verdict?.kind === 'failed') return verdict
  return { kind: 'failed', head: verdict?.head ?? null, revision: first.revision, reason: first.reason }
}
