import { randomUUID } from 'node:crypto'
import { WrongExpectedVersionError, type EventStore } from '@waybill/event-store'
import { generateApiKey, keyMatchesHash, parseApiKey } from './api-key.js'
import {
  foldKeyStream, KEY_CATEGORY, keyStreamName,
  type KeyIssuedData, type KeyRecord, type KeyRevokedData, type KeyRotatedData,
} from './key-events.js'
import { ACCOUNT_MAX_LENGTH, isAccountId, SANDBOX_ACCOUNT } from '@waybill/domain'
import type { Principal, Scope } from './scopes.js'

export interface IssueKeyInput {
  readonly account: string
  readonly scopes: readonly Scope[]
  readonly test?: boolean
  readonly replaces?: string | null
}

/** A freshly issued key: `key` is shown once and never again. */
export interface IssuedKey {
  readonly key: string
  readonly record: KeyRecord
}

/** A key that cannot be issued, rotated or revoked as asked (the operator's mistake). */
export class KeyRingError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'KeyRingError'
  }
}

/** Why a key cannot be issued as asked (the operator's mistake), or null when it can. */
export function issueProblem(input: Pick<IssueKeyInput, 'account' | 'scopes' | 'test'>): string | null {
  if (!isAccountId(input.account)) return `account "${input.account}" must be lower-case letters, digits and _ (at most ${ACCOUNT_MAX_LENGTH} characters)`
  if (input.test === true && input.account !== SANDBOX_ACCOUNT) return `test keys belong to the ${SANDBOX_ACCOUNT} account only`
  if (input.scopes.length === 0) return 'a key needs at least one scope'
  return null
}

/**
 * The key lifecycle as events in the event store, one stream per key (`apikey-<id>`), so every
 * ingress instance sees a revocation the moment it is appended. Nothing is cached: DESIGN.md §6
 * allows no cache that could accept a revoked key.
 */
export class KeyRing {
  constructor(private readonly store: EventStore, private readonly now: () => Date = () => new Date()) {}

  async issue(input: IssueKeyInput): Promise<IssuedKey> {
    const test = input.test ?? false
    const problem = issueProblem(input)
    if (problem !== null) throw new KeyRingError(problem)
    const fresh = generateApiKey(test)
    const data: KeyIssuedData = {
      key_id: fresh.keyId, account: input.account, scopes: [...new Set(input.scopes)], hash: fresh.hash, test,
      replaces: input.replaces ?? null, issued_at: this.now().toISOString(),
    }
    await this.store.appendToStream(keyStreamName(fresh.keyId),
      [{ id: randomUUID(), type: 'KeyIssued', data: { ...data } }], { expectedRevision: 'no_stream' })
    const record = foldKeyStream(await this.store.readStream(keyStreamName(fresh.keyId)))
    if (record === null) throw new Error(`key ${fresh.keyId} was appended but cannot be read back`)
    return { key: fresh.key, record }
  }

  async get(keyId: string): Promise<KeyRecord | null> {
    return foldKeyStream(await this.store.readStream(keyStreamName(keyId)))
  }

  /**
   * The principal of a presented key, or null when the key is malformed, unknown, revoked or
   * rotated. The hash comparison is constant-time.
   */
  async authenticate(presented: string): Promise<Principal | null> {
    const parsed = parseApiKey(presented)
    if (parsed === null) return null
    const record = await this.get(parsed.keyId)
    if (record === null || record.state !== 'active' || record.test !== parsed.test) return null
    // Issue refuses it already; checked again so that no stored event can widen a test key.
    if (record.test && record.account !== SANDBOX_ACCOUNT) return null
    if (!keyMatchesHash(presented, record.hash)) return null
    return { keyId: record.keyId, account: record.account, scopes: record.scopes, test: record.test }
  }

  /** Revokes a key for good; answers the record as it now stands. */
  async revoke(keyId: string, reason: string): Promise<KeyRecord> {
    const record = await this.requireActive(keyId)
    const data: KeyRevokedData = { key_id: keyId, reason, revoked_at: this.now().toISOString() }
    try {
      await this.store.appendToStream(keyStreamName(keyId),
        [{ id: randomUUID(), type: 'KeyRevoked', data: { ...data } }], { expectedRevision: record.revision })
    } catch (error) {
      // Another instance revoked or rotated it between our read and our append.
      if (error instanceof WrongExpectedVersionError) throw new KeyRingError(`key ${keyId} changed concurrently`)
      throw error
    }
    return (await this.get(keyId)) as KeyRecord
  }

  /**
   * Revokes the key first (so that a crash half-way leaves it revoked, never usable), then issues
   * a replacement for the same account and scopes and links the two. Throws KeyRingError when the
   * key is not active, including when a concurrent rotation won the race.
   */
  async rotate(keyId: string, reason: string): Promise<IssuedKey> {
    const revoked = await this.revoke(keyId, reason)
    const replacement = await this.issue({
      account: revoked.account, scopes: revoked.scopes, test: revoked.test, replaces: keyId,
    })
    const data: KeyRotatedData = { key_id: keyId, replacement_key_id: replacement.record.keyId, rotated_at: this.now().toISOString() }
    await this.store.appendToStream(keyStreamName(keyId),
      [{ id: randomUUID(), type: 'KeyRotated', data: { ...data } }], { expectedRevision: revoked.revision })
    return replacement
  }

  /** Every key ever issued, oldest first. */
  async list(): Promise<KeyRecord[]> {
    const keyIds: string[] = []
    let after = null
    for (;;) {
      const batch = await this.store.readAll({ after, maxCount: 500, categories: [KEY_CATEGORY] })
      if (batch.length === 0) break
      for (const event of batch) if (event.type === 'KeyIssued') keyIds.push(String(event.data['key_id']))
      after = (batch[batch.length - 1] as (typeof batch)[number]).position
    }
    const records = await Promise.all(keyIds.map((id) => this.get(id)))
    return records.filter((record): record is KeyRecord => record !== null)
  }

  private async requireActive(keyId: string): Promise<KeyRecord> {
    const record = await this.get(keyId)
    if (record === null) throw new KeyRingError(`no key with id ${keyId}`)
    if (record.state !== 'active') throw new KeyRingError(`key ${keyId} is already ${record.state}`)
    return record
  }
}
