import { randomUUID } from 'node:crypto'
import { SANDBOX_ACCOUNT } from '@waybill/domain'
import { handleCommand, type EventStore } from '@waybill/event-store'
import { generateApiKey, keyMatchesHash, parseApiKey } from './api-key.js'
import { issueProblem, type IssueRequest } from './issue-rules.js'
import type { KeyCommand } from './key-commands.js'
import { foldKeyStream, keyDecider } from './key-decider.js'
import { keyErrorMessage, KeyRingError } from './key-errors.js'
import { asKeyEvent, KEY_CATEGORY, keyStreamName } from './key-events.js'
import type { KeyRecord } from './key-state.js'
import type { Principal } from './principal.js'

export interface IssueKeyInput extends IssueRequest {
  /** The key this one replaces (set by `rotate`). */
  readonly replaces?: string | null
}

/** A freshly issued key: `key` is shown once and never again. */
export interface IssuedKey {
  readonly key: string
  readonly record: KeyRecord
}

/**
 * The key lifecycle as events in the event store, one stream per key (`apikey-<id>`), so every
 * ingress instance sees a revocation the moment it is appended. Nothing is cached: no cache may
 * accept a revoked key (docs/design.md, "API keys"). Every change runs the key decider through
 * `handleCommand`, which appends with the revision it decided on and decides again after a lost
 * race.
 */
export class KeyRing {
  constructor(private readonly store: EventStore, private readonly now: () => Date = () => new Date()) {}

  /** Issues a key; throws KeyRingError when `issueProblem` names a problem with the input. */
  async issue(input: IssueKeyInput): Promise<IssuedKey> {
    const test = input.test ?? false
    const fresh = generateApiKey(test)
    await this.execute({
      type: 'IssueKey',
      eventId: randomUUID(),
      data: {
        key_id: fresh.keyId, account: input.account, scopes: input.scopes, hash: fresh.hash, test,
        replaces: input.replaces ?? null, issued_at: this.now().toISOString(),
      },
    })
    return { key: fresh.key, record: await this.issued(fresh.keyId) }
  }

  async get(keyId: string): Promise<KeyRecord | null> {
    const events = await this.store.readStream(keyStreamName(keyId))
    return foldKeyStream(events.map(asKeyEvent)).record
  }

  /**
   * The principal of a presented key, or null when the key is malformed, unknown, revoked or
   * rotated, or its test flag or hash does not match. The hash comparison is constant-time.
   */
  async authenticate(presented: string): Promise<Principal | null> {
    const parsed = parseApiKey(presented)
    if (parsed === null) return null
    const record = await this.get(parsed.keyId)
    if (record === null || record.state !== 'active' || record.test !== parsed.test) return null
    // The decider refuses such a key already; checked again so that no stored event can widen a test key.
    if (record.test && record.account !== SANDBOX_ACCOUNT) return null
    if (!keyMatchesHash(presented, record.hash)) return null
    return { keyId: record.keyId, account: record.account, scopes: record.scopes, test: record.test }
  }

  /** Revokes an active key for good; answers the record as it now stands. */
  async revoke(keyId: string, reason: string): Promise<KeyRecord> {
    await this.execute({ type: 'RevokeKey', eventId: randomUUID(), data: { key_id: keyId, reason, revoked_at: this.now().toISOString() } })
    return this.issued(keyId)
  }

  /**
   * Revokes the key first (so that a crash half-way leaves it revoked, never usable), then issues
   * a replacement for the same account, scopes and test flag, then links the two (KeyRotated).
   * Throws KeyRingError when the key is not active, including when a concurrent rotation won.
   */
  async rotate(keyId: string, reason: string): Promise<IssuedKey> {
    const revoked = await this.revoke(keyId, reason)
    const replacement = await this.issue({ account: revoked.account, scopes: revoked.scopes, test: revoked.test, replaces: keyId })
    await this.execute({
      type: 'LinkReplacement',
      eventId: randomUUID(),
      data: { key_id: keyId, replacement_key_id: replacement.record.keyId, rotated_at: this.now().toISOString() },
    })
    return replacement
  }

  /** Every key ever issued, oldest first. */
  async list(): Promise<KeyRecord[]> {
    const keyIds: string[] = []
    let after = null
    for (;;) {
      const batch = await this.store.readAll({ after, maxCount: 500, categories: [KEY_CATEGORY] })
      const last = batch.at(-1)
      if (last === undefined) break
      for (const event of batch.map(asKeyEvent)) if (event.type === 'KeyIssued') keyIds.push(event.data.key_id)
      after = last.position
    }
    const records = await Promise.all(keyIds.map((id) => this.get(id)))
    return records.filter((record): record is KeyRecord => record !== null)
  }

  private async execute(command: KeyCommand): Promise<void> {
    const result = await handleCommand(this.store, keyStreamName(command.data.key_id), keyDecider, command, { metadata: {} })
    if (result.outcome !== 'rejected') return
    // An issue the rules refuse is explained with the account asked for; everything else by key id.
    const problem = command.type === 'IssueKey' ? issueProblem(command.data) : null
    throw new KeyRingError(result.error, problem ?? keyErrorMessage(result.error, command.data.key_id))
  }

  // The record of a key a command just succeeded on: the decider accepts none on a stream without a key.
  private async issued(keyId: string): Promise<KeyRecord> {
    return (await this.get(keyId)) as KeyRecord
  }
}
