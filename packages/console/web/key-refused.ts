import type { Problem } from './api.js'
import { clearSession } from './session.js'

/**
 * What a 401 during a session means: the key was revoked, rotated or expired since sign-in. The key
 * is dropped from sessionStorage and the sign-in page says why, once, however many of the page's
 * requests were refused together. `showSignIn` gets the message to show there.
 */
export function keyRefused(showSignIn: (notice: string) => void): (problem: Problem) => void {
  let done = false
  return (problem) => {
    if (done) return
    done = true
    clearSession()
    showSignIn(`The API refused your key: it was revoked, rotated or has expired since you signed in, and it has been forgotten in this tab. The API said: ${problem.detail} (${problem.code}). Sign in with a valid key.`)
  }
}
