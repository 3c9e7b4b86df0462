import { randomUUID } from 'node:crypto'
import { handleCommand, type EventStore } from '@waybill/event-store'
import { generateApiKey, keyMatchesHash, parseApiKey } from './api-key.js'
import { issueProblem, issueRejection, type IssueRequest } from './issue-rules.js'
import type { KeyCommand } from './key-commands.js'
import { KeyCache } from './key-cache.js'
import { keyDecider } from './key-decider.js'
import { keyErrorMessage, KeyRingError } from './key-errors.js'
import { asKeyEvent, KEY_CATEGORY, keyStreamName } from './key-events.js'
import type { KeyRecord } from './key-state.js'
import { expiryRejection, isUsableAt, USE_RECORD_INTERVAL_MS } from './key-times.js'
import { reportToStderr, UseRecorder, type UseNotRecorded } from './key-usage.js'
import type { Principal } from './principal.js'
import type { Scope } from './scopes.js'
import { readWithLastUse, recordUse } from './key-use-stream.js'

export interface IssueKeyInput extends IssueRequest {
  /** The key this one replaces (set by `rotate`). */
  readonly replaces?: string | null
  /** When the key stops authenticating (an ISO 8601 UTC time); null or absent: never. */
  readonly expiresAt?: string | null
}

/** A freshly issued key: `key` is shown once and never again. */
export interface IssuedKey {
  readonly key: string
  readonly record: KeyRecord
}

export interface RotateOptions {
  /** How long the old key keeps authenticating after the rotation, in ms; 0 or absent: not at all. */
  readonly graceMs?: number
  /** The replacement's expiry; absent: the old key's; null: none. */
  readonly expiresAt?: string | null
}

/** What `update` changes on an active key; a member left out stays as it is. */
export interface KeyUpdate {
  readonly scopes?: readonly Scope[]
  /** null removes the label. */
  readonly label?: string | null
  /** null: the key no longer expires. */
  readonly expiresAt?: string | null
}

export interface KeyRingOptions {
  /** Told when a use could not be recorded (default: a line on stderr); a request never waits for it. */
  readonly onUseNotRecorded?: UseNotRecorded
  /** How often noted uses are written, in ms (default: once a minute). */
  readonly useFlushMs?: number
}

/**
 * The key lifecycle as events in the event store, one stream per key (`apikey-<id>`), so every
 * ingress instance sees a revocation the moment it is appended. `authenticate` reads key records
 * through a `KeyCache`, which a change counter in the store empties whenever any process appends
 * a key event, so no cache accepts a revoked key (docs/design.md#key-cache). Every change runs the key decider through
 * `handleCommand`, which appends with the revision it decided on and decides again after a lost
 * race. Uses are noted in memory and recorded in the background, in each key's use stream
 * (`key-use-stream.ts`).
 */
export class KeyRing {
  private readonly uses: UseRecorder
  private readonly cache: KeyCache

  constructor(private readonly store: EventStore, private readonly now: () => Date = () => new Date(), options: KeyRingOptions = {}) {
    this.uses = new UseRecorder((keyId, usedAt) => recordUse(this.store, keyId, usedAt), options.onUseNotRecorded ?? reportToStderr,
      options.useFlushMs ?? USE_RECORD_INTERVAL_MS)
    this.cache = new KeyCache(store)
  }

  /** Issues a key; throws KeyRingError when `issueProblem` names a problem with the input. */
  async issue(input: IssueKeyInput): Promise<IssuedKey> {
    const test = input.test ?? false
    const fresh = generateApiKey(test)
    await this.execute({
      type: 'IssueKey',
      eventId: randomUUID(),
      data: {
        key_id: fresh.keyId, account: input.account, scopes: input.scopes, hash: fresh.hash, test,
        replaces: input.replaces ?? null, issued_at: this.now().toISOString(), label: input.label ?? null, expires_at: input.expiresAt ?? null,
      },
    })
    return { key: fresh.key, record: await this.issued(fresh.keyId) }
  }

  /** The key's record, with its last recorded use. */
  async get(keyId: string): Promise<KeyRecord | null> {
    return (await readWithLastUse(this.store, keyId)).state.record
  }

  /** The record of the key `presented` is (whatever its state), or null when no stored key is that key. */
  async findByKey(presented: string): Promise<KeyRecord | null> {
    const parsed = parseApiKey(presented)
    if (parsed === null) return null
    const record = await this.get(parsed.keyId)
    if (record === null || record.test !== parsed.test || !keyMatchesHash(presented, record.hash)) return null
    return record
  }

  /** Whether the key authenticates now (active and not expired, or within its rotation's grace). */
  isUsable(record: KeyRecord): boolean {
    return isUsableAt(record, this.now())
  }

  /**
   * The principal of a presented key, or null when the key is malformed, unknown, revoked or
   * rotated (past its grace), expired, or its test flag or hash does not match. Reads the key's
   * record through the cache (one index read of the change counter when nothing changed); the use
   * is noted in memory and written later, never on the request's path.
   */
  async authenticate(presented: string): Promise<Principal | null> {
    const parsed = parseApiKey(presented)
    if (parsed === null) return null
    const record = await this.cache.record(parsed.keyId)
    const now = this.now()
    if (record === null || record.test !== parsed.test || !isUsableAt(record, now)) return null
    // The decider refuses such keys already (a test key outside the sandbox, an auditor key that
    // writes); checked again so that no stored event can widen a key.
    if (issueRejection(record) !== null) return null
    if (!keyMatchesHash(presented, record.hash)) return null
    this.uses.note(record.keyId, now)
    return { keyId: record.keyId, account: record.account, scopes: record.scopes, test: record.test }
  }

  /** Revokes an active key for good, at once; answers the record as it now stands. */
  async revoke(keyId: string, reason: string): Promise<KeyRecord> {
    return this.change({ type: 'RevokeKey', eventId: randomUUID(), data: { key_id: keyId, reason, revoked_at: this.now().toISOString() } })
  }

  /**
   * Revokes the key first (so that a crash half-way leaves it revoked, never usable past its
   * grace), then issues a replacement for the same account, scopes, test flag and label, then
   * links the two (KeyRotated). With `graceMs` the old key keeps authenticating that long.
   * Throws KeyRingError when the key is not active, including when a concurrent rotation won.
   */
  async rotate(keyId: string, reason: string, options: RotateOptions = {}): Promise<IssuedKey> {
    const now = this.now()
    const current = await this.get(keyId)
    const expiresAt = options.expiresAt !== undefined ? options.expiresAt : current?.expiresAt ?? null
    // Checked before the revocation: a replacement the decider would refuse must not leave the
    // old key revoked and no replacement at all.
    if (expiresAt !== null && expiryRejection(expiresAt, now.toISOString()) !== null) {
      throw new KeyRingError('invalid_expiry', `key ${keyId}: its replacement cannot expire at ${expiresAt}; give it a later expiry, or none`)
    }
    const graceMs = options.graceMs ?? 0
    const revoked = await this.change({
      type: 'RevokeKey',
      eventId: randomUUID(),
      data: {
        key_id: keyId, reason, revoked_at: now.toISOString(),
        ...(graceMs > 0 ? { grace_until: new Date(now.getTime() + graceMs).toISOString() } : {}),
      },
    })
    const replacement = await this.issue({
      account: revoked.account, scopes: revoked.scopes, test: revoked.test, label: revoked.label, expiresAt, replaces: keyId,
    })
    await this.execute({
      type: 'LinkReplacement',
      eventId: randomUUID(),
      data: { key_id: keyId, replacement_key_id: replacement.record.keyId, rotated_at: this.now().toISOString() },
    })
    return replacement
  }

  /** Cuts a rotation's grace short: the key stops authenticating now. */
  async endGrace(keyId: string, reason: string): Promise<KeyRecord> {
    return this.change({ type: 'EndGrace', eventId: randomUUID(), data: { key_id: keyId, reason, ended_at: this.now().toISOString() } })
  }

  /** Changes an active key's scopes, label or expiry; asking for what it has changes nothing. */
  async update(keyId: string, changes: KeyUpdate): Promise<KeyRecord> {
    return this.change({
      type: 'UpdateKey',
      eventId: randomUUID(),
      data: {
        key_id: keyId, updated_at: this.now().toISOString(),
        ...(changes.scopes !== undefined ? { scopes: changes.scopes } : {}),
        ...(changes.label !== undefined ? { label: changes.label } : {}),
        ...(changes.expiresAt !== undefined ? { expires_at: changes.expiresAt } : {}),
      },
    })
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

  /** Records the uses noted so far now, instead of at the next interval. Never rejects. */
  async flushUses(): Promise<void> {
    await this.uses.flush()
  }

  /** Records the uses noted so far and stops noting; call before the store closes. */
  async close(): Promise<void> {
    await this.uses.close()
  }

  private async change(command: KeyCommand): Promise<KeyRecord> {
    await this.execute(command)
    return this.issued(command.data.key_id)
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
