import { createPublicKey, type KeyObject } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { parseTreeHead, type SignedTreeHead } from '@waybill/merkle'

/** A head read from FILE: one JSON head, or JSON lines (the last one). A string says what is wrong. */
export function readKeptHead(path: string): SignedTreeHead | string {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    return `--head ${path}: ${(error as Error).message}`
  }
  const lines = text.trim().split('\n').filter((line) => line.trim() !== '')
  const candidates = [text, lines.at(-1) ?? '']
  for (const candidate of candidates) {
    try {
      const head = parseTreeHead(JSON.parse(candidate))
      if (head !== null) return head
    } catch {
      // Not this form; try the next.
    }
  }
  return `--head ${path}: not a signed tree head (one JSON object, or JSON lines whose last is one)`
}

/**
 * A public key an auditor pinned: a PEM (SPKI), or the JSON document of GET
 * /v1/audit/public-key (its `public_key_pem`). A string says what is wrong.
 */
export function readPublicKey(path: string): KeyObject | string {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    return `--public-key ${path}: ${(error as Error).message}`
  }
  let pem = text
  if (text.trimStart().startsWith('{')) {
    try {
      const document = JSON.parse(text) as { public_key_pem?: unknown }
      pem = typeof document.public_key_pem === 'string' ? document.public_key_pem : ''
    } catch {
      pem = ''
    }
  }
  try {
    const key = createPublicKey(pem)
    return key.asymmetricKeyType === 'ed25519' ? key : `--public-key ${path}: not an Ed25519 key (${String(key.asymmetricKeyType)})`
  } catch {
    return `--public-key ${path}: not a public key (a PEM, or the JSON of GET /v1/audit/public-key)`
  }
}
