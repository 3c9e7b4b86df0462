import { hash } from 'node:crypto'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

// The last namespace's bytes: there is one namespace in practice (event ids), so neither the
// check nor the hex decoding is paid per id.
let lastNamespace = ''
let lastBytes = Buffer.alloc(16)

/**
 * A name-based UUID, version 5 (RFC 9562 §5.5): SHA-1 over the namespace's 16 bytes then the
 * name's UTF-8 bytes, the first 16 bytes kept, version and variant bits set. Lower-case text.
 */
export function uuidV5(name: string, namespace: string): string {
  if (namespace !== lastNamespace) {
    if (!UUID.test(namespace)) throw new TypeError(`not a UUID: ${JSON.stringify(namespace)}`)
    lastBytes = Buffer.from(namespace.replaceAll('-', ''), 'hex')
    lastNamespace = namespace
  }
  const bytes = hash('sha1', Buffer.concat([lastBytes, Buffer.from(name, 'utf8')]), 'buffer').subarray(0, 16)
  bytes.writeUInt8((bytes.readUInt8(6) & 0x0f) | 0x50, 6)
  bytes.writeUInt8((bytes.readUInt8(8) & 0x3f) | 0x80, 8)
  const hex = bytes.toString('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}
