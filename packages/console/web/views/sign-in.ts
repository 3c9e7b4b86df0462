import { Api, ApiError, type Problem } from '../api.js'
import { h, show } from '../dom.js'
import { saveSession, type Session } from '../session.js'

/**
 * The sign-in page: a key that can read, checked against the API before it is kept. `notice`: why
 * the auditor is back here (a key refused mid-session), shown above the form.
 */
export function signInPage(onSignedIn: (session: Session) => void, notice?: string): void {
  const input = h('input', { id: 'api-key', name: 'api-key', type: 'password', autocomplete: 'off', spellcheck: 'false', required: true, 'aria-describedby': 'api-key-help' })
  const pin = h('input', { id: 'pinned-key-id', name: 'pinned-key-id', type: 'text', autocomplete: 'off', spellcheck: 'false', pattern: '[0-9a-f]{16}', 'aria-describedby': 'pinned-key-id-help' })
  const status = h('p', { id: 'sign-in-status', role: 'status' })
  const form = h('form', { id: 'sign-in', novalidate: true },
    h('label', { for: 'api-key' }, 'API key'),
    input,
    h('p', { id: 'api-key-help', class: 'help' },
      'An account key with the orders:read scope, or an auditor key (orders:audit). It stays in this browser tab only and is sent to the API in the Service-Api-Key header.'),
    h('label', { for: 'pinned-key-id' }, 'Audit log key id (optional)'),
    pin,
    h('p', { id: 'pinned-key-id-help', class: 'help' },
      'The 16 hex digits of the audit log\'s public key id, as you know it from the operator or a head you kept. Verdicts then fail if the server offers any other key.'),
    h('button', { type: 'submit' }, 'Sign in'),
    status)
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    const key = input.value.trim()
    const pinned = pin.value.trim().toLowerCase()
    if (key === '') {
      status.textContent = 'Enter an API key.'
      input.focus()
      return
    }
    if (pinned !== '' && !/^[0-9a-f]{16}$/.test(pinned)) {
      status.textContent = 'A key id is 16 hex digits.'
      pin.focus()
      return
    }
    status.textContent = 'Checking the key…'
    void signIn(key, pinned === '' ? undefined : pinned).then(onSignedIn, (error: unknown) => {
      if (error instanceof ApiError) refusedPage(error.problem, () => signInPage(onSignedIn))
      else status.textContent = `The API could not be reached: ${String(error)}`
    })
  })
  show(h('h1', {}, 'Sign in to the Waybill console'),
    notice !== undefined ? h('p', { id: 'key-refused', class: 'refused', role: 'alert' }, notice) : null,
    h('p', {}, 'Read the delivery histories your key can see, and check them against the signed audit log in this browser.'),
    form)
}

async function signIn(key: string, pinnedKeyId: string | undefined): Promise<Session> {
  const api = new Api(key, { baseUrl: location.origin })
  const who = await api.ping()
  // Any valid key answers /ping; reading needs orders:read or orders:audit, which the list checks.
  await api.listOrders({ limit: 1 }, undefined)
  const session = { key, account: who.account, keyId: who.key_id, auditor: who.account === '*', ...(pinnedKeyId !== undefined ? { pinnedKeyId } : {}) }
  saveSession(session)
  return session
}

const EXPLANATIONS: Readonly<Record<string, string>> = {
  invalid_api_key: 'The API does not accept this key: it is mistyped, or it was revoked, rotated or has expired. Ask the operator for a valid key.',
  api_key_forbidden: 'This key is valid but cannot read orders: it lacks the orders:read scope (auditor keys have orders:audit). Ask the operator for a read key.',
  api_key_missing: 'No key was sent.',
  rate_limited: 'Too many requests with this key; wait a moment and try again.',
}

/** The page for a refused key, with the API's own words (its problem body) beside ours. */
function refusedPage(problem: Problem, retry: () => void): void {
  const again = h('button', { type: 'button' }, 'Try another key')
  again.addEventListener('click', retry)
  show(h('h1', {}, problem.code === 'api_key_forbidden' ? 'This key cannot read orders' : 'This key was refused'),
    h('div', { class: 'refused', role: 'alert' },
      h('p', {}, EXPLANATIONS[problem.code] ?? 'The API refused the request.'),
      h('p', {}, 'The API said: ', h('q', { class: 'detail' }, problem.detail), ` (${problem.code}, HTTP ${problem.status})`)),
    again)
}
