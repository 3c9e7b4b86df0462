import { ApiError, type Api, type History } from '../api.js'
import { fill, h } from '../dom.js'
import { verifyOrder, type ExpectedOrder, type Verdict } from '../verify/verdict.js'
import { messageOf } from './orders.js'

/** A route the server answered 404 for; `what` it thereby gives none of. */
class Missing extends Error {
  constructor(readonly what: string) {
    super(what)
  }
}

async function answer<T>(request: Promise<T>, what: string): Promise<T> {
  try {
    return await request
  } catch (error) {
    throw error instanceof ApiError && error.problem.status === 404 ? new Missing(what) : error
  }
}

/**
 * The verdict on the order the page shows (`expected`; null when the page cannot name its account),
 * from the log's key set and the order's proof. Null: no verdict at all, for a server without
 * the audit routes, unless the auditor pinned a key id: they know a signed log exists, so a server
 * that answers 404 for its proof or its key is withholding the check, and fails.
 */
export async function fetchVerdict(
  api: Pick<Api, 'publicKeys' | 'proof'>, id: string, account: string | undefined, history: History,
  expected: ExpectedOrder | null, pinnedKeyId: string | undefined,
): Promise<Verdict | null> {
  if (expected === null) return { kind: 'failed', head: null, revision: null, reason: 'the page names no account for this order, so it cannot tell which stream the events must be in' }
  try {
    const [keys, proof] = await Promise.all([answer(api.publicKeys(), 'no public key for the audit log'), answer(api.proof(id, account), 'no proof for this order')])
    return await verifyOrder(history.events, proof, keys.keys, expected, pinnedKeyId)
  } catch (error) {
    if (error instanceof Missing) {
      return pinnedKeyId === undefined ? null
        : { kind: 'failed', head: null, revision: null, reason: `the server gives ${error.what} (404), though you pinned the log's key id` }
    }
    return { kind: 'failed', head: null, revision: null, reason: messageOf(error) }
  }
}

/** The box's colour: green, amber (not all covered yet), red, or neutral (nothing to verify against). */
type Tone = 'verified' | 'partial' | 'failed' | 'none'

export interface VerdictText {
  readonly tone: Tone
  readonly outcome: string
  /** The head it was checked against, when there is one. */
  readonly head: string | null
}

/** What the leaf covers, said where the verdict is green: the rest of the page is the server's word. */
const COVERS = 'each one\'s event id, stream, revision, type, data (with the images\' sha256), event date and received time. ' +
  'The sender\'s key, request id, state after, hash and previous hash are the server\'s record, not signed.'

/** The verdict in words, and its tone. */
export function verdictText(verdict: Verdict | null, pinned: boolean): VerdictText {
  if (verdict === null) return { tone: 'none', head: null, outcome: 'No signed audit log is available for this order yet: the history below is the server\'s word.' }
  const head = verdict.head === null ? null
    : `Signed tree head: tree size ${verdict.head.tree_size}, signed ${verdict.head.timestamp}, key ${verdict.head.key_id}${pinned ? ' (the key id you pinned)' : ' (not pinned: compare it with the one you know)'}, root ${verdict.head.root_hash.slice(0, 16)}…`
  switch (verdict.kind) {
    case 'failed':
      return { tone: 'failed', head, outcome: verdict.revision === null ? `Not verified: ${verdict.reason}.` : `Not verified: revision ${verdict.revision} fails: ${verdict.reason}.` }
    case 'unsigned':
      return { tone: 'none', head, outcome: `No signed head yet: the audit log has not signed a tree head, so this order's ${verdict.events} event(s) cannot be verified; the history below is the server's word. Reload in a moment.` }
    case 'pending':
      return { tone: 'partial', head, outcome: `Not yet verifiable: this order's ${verdict.pending} event(s) are not yet covered by a signed head (the latest has tree size ${verdict.head.tree_size}). Reload in a moment.` }
    case 'partial':
      return { tone: 'partial', head, outcome: `Partly verified: ${verdict.covered} event(s) verified against the head of tree size ${verdict.head.tree_size}; ${verdict.pending} newer event(s) not yet covered by a signed head. Reload in a moment to check them.` }
    case 'verified':
      return { tone: 'verified', head, outcome: `Verified in this browser: all ${verdict.covered} event(s) of this order are in the signed log as shown here: ${COVERS}` }
  }
}

/** Fills the verdict box; `data-verdict` (the kind, or "unavailable") is what the JSON export records. */
export function renderVerdict(box: HTMLElement, verdict: Verdict | null, history: History, pinned: boolean): void {
  const text = verdictText(verdict, pinned)
  const chain = h('p', { class: 'chain' }, history.chain.ok
    ? 'The server reports the stream\'s hash chain intact (its word, not checked here).'
    : `The server reports the stream's hash chain broken at revision ${history.chain.revision}: ${history.chain.reason}.`)
  box.classList.remove('verdict-checking')
  box.classList.add(`verdict-${text.tone}`)
  box.dataset['verdict'] = verdict?.kind ?? 'unavailable'
  fill(box, [
    h('h2', { id: 'verdict-title' }, 'Verification'),
    h('p', { class: 'outcome', ...(text.tone === 'failed' ? { role: 'alert' } : {}) }, text.outcome),
    text.head !== null ? h('p', { class: 'head' }, text.head) : null,
    chain,
  ])
}
