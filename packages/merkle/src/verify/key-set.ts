import { base64ToBytes, utf8 } from './bytes.js'
import { runHashing, type Sha256 } from './hashing.js'
import { isWellFormedHead, keyIdSteps, type SignedTreeHead } from './tree-head.js'
import { verifyTreeHead, type HeadCheck } from './verifiers.js'

/**
 * How a key took over from the one before it (docs/audit.md#key-lifecycle), signed by the new
 * key and, for a rotation, by the old one too: the old key vouches for the new, so an auditor who
 * pinned the old key comes to trust the new one without asking anybody.
 */
export interface KeyStatement {
  /** `rotated`: the old key signed it too (`endorsement`); `lost`: the old key was lost, only the new one signed. */
  readonly kind: 'rotated' | 'lost'
  readonly old_key_id: string
  readonly new_key_id: string
  /** Base64 of the new key's raw 32 bytes. */
  readonly new_public_key: string
  /** The latest head's size and root when the key changed: the old key signs nothing past it, the new one nothing before. */
  readonly tree_size: number
  readonly root_hash: string
  /** When the key changed (as a head's timestamp): the old key's heads are not later, the new key's not earlier. */
  readonly timestamp: string
  /** Base64 of the new key's Ed25519 signature over `keyStatementMessage`. */
  readonly signature: string
  /** Base64 of the old key's signature over the same message, for `rotated`; null for `lost`. */
  readonly endorsement: string | null
}

/** A key of the log's key set, as `GET /v1/audit/public-keys` serves it (the members a check needs). */
export interface AuditKey {
  readonly key_id: string
  /** Base64 of the raw 32-byte Ed25519 public key. */
  readonly public_key: string
  /** How it took over; null for the log's first key. */
  readonly replaces: KeyStatement | null
}

/** Where a key's heads may lie: from the statement that made it current, until the one that retired it. */
export interface KeyValidity {
  readonly from: Pick<KeyStatement, 'tree_size' | 'timestamp'> | null
  readonly until: Pick<KeyStatement, 'tree_size' | 'timestamp'> | null
}

export interface TrustedKey {
  readonly raw: Uint8Array<ArrayBuffer>
  readonly validity: KeyValidity
}

export interface CheckedKeySet {
  /** The keys to believe: the anchors, and every key a believed key vouched for by a rotation. */
  readonly trusted: ReadonlyMap<string, TrustedKey>
  /** The set's other sound keys, each with why it is not believed. */
  readonly untrusted: ReadonlyMap<string, string>
  /** What is wrong with the set itself: a key whose id is not its key's, a statement that does not verify. */
  readonly problems: readonly string[]
}

/**
 * The bytes a key statement's signatures cover: "waybill-key-statement/v1\n" + kind + "\n" +
 * old key id + "\n" + new key id + "\n" + new public key (base64) + "\n" + tree size + "\n" +
 * root + "\n" + timestamp + "\n", in UTF-8. Its own version tag, so that neither a head nor a
 * statement can be taken for the other.
 */
export function keyStatementMessage(statement: Omit<KeyStatement, 'signature' | 'endorsement'>): Uint8Array<ArrayBuffer> {
  const s = statement
  return utf8(`waybill-key-statement/v1\n${s.kind}\n${s.old_key_id}\n${s.new_key_id}\n${s.new_public_key}\n${s.tree_size}\n${s.root_hash}\n${s.timestamp}\n`)
}

/** Verifies an Ed25519 signature (base64) over `message` with a raw public key, with WebCrypto. */
async function signedBy(message: Uint8Array<ArrayBuffer>, signature: unknown, raw: Uint8Array<ArrayBuffer>): Promise<boolean> {
  const bytes = typeof signature === 'string' ? base64ToBytes(signature) : null
  if (bytes?.length !== 64) return false
  const key = await crypto.subtle.importKey('raw', raw, { name: 'Ed25519' }, false, ['verify'])
  return crypto.subtle.verify({ name: 'Ed25519' }, key, bytes, message)
}

/** Whether a statement's signed fields are well formed (it may come from anywhere). */
function isWellFormedStatement(s: KeyStatement): boolean {
  // Its type says so; the server's word is what is being checked.
  const kind: string = s.kind
  return (kind === 'rotated' || kind === 'lost') && typeof s.old_key_id === 'string' &&
    isWellFormedHead({ tree_size: s.tree_size, root_hash: s.root_hash, timestamp: s.timestamp })
}

/**
 * Checks the log's key set (docs/audit.md#key-lifecycle) and says which keys to believe. Every
 * key's id must be its key's; every statement must be signed by the key it brings in and, for a
 * rotation, by the key it retires. `anchors` are the key ids the auditor trusts from elsewhere (a
 * pinned key); a key is believed when it is an anchor or a believed key vouched for it, so a
 * chain of rotations leads from a pinned key to the current one, while a key that replaced a
 * lost one is believed only when pinned itself. `anchors` null: every sound key is believed (the
 * server's word, as with no pinned key).
 */
export async function checkKeySet(keys: readonly AuditKey[], anchors: readonly string[] | null, sha256: Sha256): Promise<CheckedKeySet> {
  const problems: string[] = []
  const raws = new Map<string, Uint8Array<ArrayBuffer>>()
  for (const key of keys) {
    const raw = typeof key.public_key === 'string' ? base64ToBytes(key.public_key) : null
    if (raw?.length !== 32) {
      problems.push(`key ${key.key_id}: its public key is not 32 bytes of base64`)
      continue
    }
    const id = await runHashing(keyIdSteps(raw), sha256)
    if (id !== key.key_id) problems.push(`key ${key.key_id}: its public key has id ${id}`)
    else raws.set(id, raw)
  }
  // The statements that hold, by the key they brought in; then who replaced whom.
  const statements = new Map<string, KeyStatement>()
  const successors = new Map<string, KeyStatement>()
  for (const key of keys) {
    const raw = raws.get(key.key_id)
    const s = key.replaces
    if (raw === undefined || s === null) continue
    const problem = await statementProblem(key, s, raw, raws)
    if (problem !== null) {
      problems.push(`key ${key.key_id}: ${problem}`)
      continue
    }
    const earlier = successors.get(s.old_key_id)
    if (earlier !== undefined) {
      problems.push(`key ${s.old_key_id} is said to be replaced twice (by ${earlier.new_key_id} and ${key.key_id})`)
      continue
    }
    statements.set(key.key_id, s)
    successors.set(s.old_key_id, s)
  }
  const believed = new Set(anchors === null ? raws.keys() : anchors.filter((id) => raws.has(id)))
  // Follow rotations from what is believed until nothing more is vouched for.
  for (let grew = true; grew;) {
    grew = false
    for (const [id, s] of statements) {
      if (!believed.has(id) && s.kind === 'rotated' && believed.has(s.old_key_id)) {
        believed.add(id)
        grew = true
      }
    }
  }
  const trusted = new Map<string, TrustedKey>()
  const untrusted = new Map<string, string>()
  for (const [id, raw] of raws) {
    const from = statements.get(id) ?? null
    const until = successors.get(id) ?? null
    if (believed.has(id)) {
      trusted.set(id, { raw, validity: { from: from === null ? null : pick(from), until: until === null ? null : pick(until) } })
    } else {
      untrusted.set(id, from?.kind === 'lost'
        ? `it replaced key ${from.old_key_id}, declared lost at tree size ${from.tree_size} (${from.timestamp}), so no key you trust vouches for it: confirm it out of band and pin it`
        : 'no key you trust vouches for it')
    }
  }
  return { trusted, untrusted, problems }
}

function pick(s: KeyStatement): Pick<KeyStatement, 'tree_size' | 'timestamp'> {
  return { tree_size: s.tree_size, timestamp: s.timestamp }
}

/** Why the statement that brought `key` in does not hold, or null. */
async function statementProblem(key: AuditKey, s: KeyStatement, raw: Uint8Array<ArrayBuffer>,
  raws: ReadonlyMap<string, Uint8Array<ArrayBuffer>>): Promise<string | null> {
  if (!isWellFormedStatement(s) || s.new_key_id !== key.key_id || s.new_public_key !== key.public_key) return 'its key statement is malformed or names another key'
  const message = keyStatementMessage(s)
  if (!await signedBy(message, s.signature, raw)) return 'its key statement is not signed by it'
  if (s.kind === 'lost') return s.endorsement === null ? null : 'its key statement says the old key was lost, yet carries an endorsement'
  const old = raws.get(s.old_key_id)
  if (old === undefined) return `its key statement names key ${s.old_key_id}, which is not among the log's keys`
  return await signedBy(message, s.endorsement, old) ? null : `its key statement is not endorsed by key ${s.old_key_id}`
}

/**
 * Whether `head` is signed by a key of the checked set that is believed, within that key's
 * validity (not before the statement that made it current, not after the one that retired it);
 * if not, why not.
 */
export async function checkHeadKey(head: SignedTreeHead, keys: CheckedKeySet, sha256: Sha256): Promise<HeadCheck> {
  const key = keys.trusted.get(head.key_id)
  if (key === undefined) {
    const why = keys.untrusted.get(head.key_id)
    return { ok: false, reason: why === undefined ? `the head names key ${head.key_id}, which is not among the log's keys` : `the head is signed by key ${head.key_id}: ${why}` }
  }
  if (!isWellFormedHead(head)) return { ok: false, reason: 'the head is malformed' }
  const { from, until } = key.validity
  // Timestamps of one fixed shape (isWellFormedHead) compare as text in time order.
  if (from !== null && (head.tree_size < from.tree_size || head.timestamp < from.timestamp)) {
    return { ok: false, reason: `the head is signed by key ${head.key_id} before that key took over (tree size ${from.tree_size}, ${from.timestamp})` }
  }
  if (until !== null && (head.tree_size > until.tree_size || head.timestamp > until.timestamp)) {
    return { ok: false, reason: `the head is signed by key ${head.key_id} after that key was retired (tree size ${until.tree_size}, ${until.timestamp})` }
  }
  return verifyTreeHead(head, key.raw, sha256)
}
