import { randomBytes } from 'node:crypto'

const PREFIX = 'whsec_'
/** Random bytes of a new secret: 32, within the Standard Webhooks' 24 to 64. */
const SECRET_BYTES = 32

/** A new endpoint secret: `whsec_` and the base64 of 32 random bytes (the Standard Webhooks form). */
export function newSecret(): string {
  return `${PREFIX}${randomBytes(SECRET_BYTES).toString('base64')}`
}

/** The HMAC key of a secret: the bytes its base64 stands for (the prefix is not part of the key). */
export function secretKey(secret: string): Buffer {
  return Buffer.from(secret.slice(PREFIX.length), 'base64')
}
