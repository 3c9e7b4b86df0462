import { LIMITS } from '@waybill/domain'

/**
 * Hostile bodies that each froze the event loop for a second or more before the body structure
 * limits (docs/contract.md#body-structure), each just under the 16 MiB body limit so that it is
 * read whole and reaches the parser.
 */
export const HOSTILE_KINDS = ['nested-arrays', 'million-keys', 'form-fields', 'multipart-parts'] as const
export type HostileKind = (typeof HOSTILE_KINDS)[number]

export interface HostileBody {
  readonly body: Buffer
  readonly contentType: string
}

const BOUNDARY = 'hostile-b'

export function hostileBody(kind: HostileKind): HostileBody {
  switch (kind) {
    case 'nested-arrays': {
      const half = LIMITS.bodyMaxBytes / 2 - 1
      return { body: Buffer.from(`${'['.repeat(half)}${']'.repeat(half)}`), contentType: 'application/json' }
    }
    case 'million-keys':
      return { body: joined(1_000_000, '{', ',', '}', (i) => `"k${pad(i, 10)}":0`), contentType: 'application/json' }
    case 'form-fields':
      return { body: joined(640_000, '', '&', '', (i) => `f${pad(i, 7)}=${'x'.repeat(16)}`), contentType: 'application/x-www-form-urlencoded' }
    case 'multipart-parts':
      return {
        body: joined(220_000, '', '', `--${BOUNDARY}--\r\n`, (i) => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="f${pad(i, 6)}"\r\n\r\n${'x'.repeat(10)}\r\n`),
        contentType: `multipart/form-data; boundary=${BOUNDARY}`,
      }
  }
}

/** The detail each is refused with (docs/contract.md#body-structure), all as 400 bad_request. */
export const REFUSAL: Readonly<Record<HostileKind, RegExp>> = {
  'nested-arrays': new RegExp(`^The JSON body nests objects and arrays more than ${LIMITS.bodyMaxDepth} deep`),
  'million-keys': new RegExp(`^The JSON body has more than ${LIMITS.bodyMaxFields} object members and array elements`),
  'form-fields': new RegExp(`^The form has more than ${LIMITS.bodyMaxFields} fields`),
  'multipart-parts': new RegExp(`^The multipart body has more than ${LIMITS.bodyMaxFields} parts`),
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0')
}

function joined(count: number, open: string, separator: string, close: string, item: (i: number) => string): Buffer {
  const items: string[] = []
  for (let i = 0; i < count; i++) items.push(item(i))
  const body = Buffer.from(`${open}${items.join(separator)}${close}`)
  if (body.length > LIMITS.bodyMaxBytes) throw new RangeError(`a hostile body of ${body.length} bytes would be refused for its size`)
  return body
}
