/**
 * An opening thread (`OpeningThreads`): opens the sealed parts it is sent with the keys sent
 * beside them and answers their text. It keeps each key's derived encryption key for the parts
 * of the same order in later batches, and nothing once it ends.
 */
import { parentPort } from 'node:worker_threads'
import type { SealedPersonal } from '@waybill/domain'
import { textOpener } from '../seal.js'
import type { FromOpening, OpeningItem, ToOpening } from './protocol.js'

/** Keys whose derived key is kept at once; past it, all are forgotten and derived again when sent. */
const KEYS_HELD = 100_000

const port = parentPort
if (port === null) throw new Error('opening-worker runs as a worker thread')
const openers = new Map<string, { readonly secret: Buffer; readonly open: (context: string, sealed: SealedPersonal) => string }>()

port.on('message', (message: ToOpening) => {
  for (const [id, bytes] of message.keys) {
    const secret = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    if (openers.get(id)?.secret.equals(secret) === true) continue
    if (openers.size >= KEYS_HELD) openers.clear()
    openers.set(id, { secret, open: textOpener({ id, secret }) })
  }
  const texts = (JSON.parse(message.items) as OpeningItem[]).map(([keyId, context, iv, box]) => {
    try {
      const text = openers.get(keyId)?.open(context, { key: keyId, iv, box }) ?? ''
      // Sealed JSON holds no raw newline (the answer's separator); one that does is left to the caller.
      return text.includes('\n') ? '' : text
    } catch {
      // The caller opens it again itself and throws what that throws.
      return ''
    }
  })
  port.postMessage({ id: message.id, texts: texts.join('\n') } satisfies FromOpening)
})
