import { createPublicKey } from 'node:crypto'
import type { KeyStatement } from '@waybill/merkle'
import type { AuditKeyRecord } from './head-store.js'
import { publicKeyDocument, type PublicKeyDocument } from './signing-key.js'

/** A key of the set as GET /v1/audit/public-keys and `waybill audit keys` answer it (docs/audit.md#key-lifecycle). */
export interface AuditKeyDocument extends PublicKeyDocument {
  /** `current`: heads are signed with it now; `retired`: a key statement replaced it. */
  readonly status: 'current' | 'retired'
  /** When it took over (its statement's time); null for the log's first key, valid from the start. */
  readonly valid_from: string | null
  /** When it was retired; null while current. */
  readonly valid_until: string | null
  /** The signed statement by which it took over from the key before it; null for the first key. */
  readonly replaces: KeyStatement | null
}

export function auditKeyDocument(record: AuditKeyRecord): AuditKeyDocument {
  const x = Buffer.from(record.public_key, 'base64').toString('base64url')
  return {
    ...publicKeyDocument(createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' })),
    status: record.retired_at === null ? 'current' : 'retired',
    valid_from: record.replaces?.timestamp ?? null,
    valid_until: record.retired_at,
    replaces: record.replaces,
  }
}
