/**
 * The signed-in key lives in sessionStorage only: gone when the tab closes, never in a URL, a
 * cookie or localStorage; it is sent only in the Service-Api-Key header (api.ts).
 */
const KEY = 'waybill.console.key'

export interface Session {
  readonly key: string
  readonly account: string
  readonly keyId: string
  /** An auditor key (account `*`): reads every account, names one with ?account=. */
  readonly auditor: boolean
  /** The audit log key's id the auditor knows from elsewhere; verdicts fail on any other key. */
  readonly pinnedKeyId?: string
}

export function loadSession(): Session | null {
  const raw = sessionStorage.getItem(KEY)
  if (raw === null) return null
  try {
    const parsed = JSON.parse(raw) as Session
    return typeof parsed.key === 'string' ? parsed : null
  } catch {
    return null
  }
}

export function saveSession(session: Session): void {
  sessionStorage.setItem(KEY, JSON.stringify(session))
}

export function clearSession(): void {
  sessionStorage.removeItem(KEY)
}
