import { redactKeyTokens } from '@waybill/keys'

/** The query parameters whose values are personal data (the orders list's filters). */
const PERSONAL_PARAMETERS = new Set(['customer', 'location'])

/**
 * A request URL as the log may hold it: any API key token cut to its prefix, and the value of
 * a personal filter replaced by `~` (docs/personal-data.md#trust-model), so an access log line
 * says which filters were asked, never for whom.
 */
export function loggableUrl(url: string): string {
  const at = url.indexOf('?')
  if (at === -1) return redactKeyTokens(url)
  const query = url.slice(at + 1).split('&').map((pair) => {
    const name = pair.split('=', 1)[0] ?? ''
    let decoded = name
    try {
      decoded = decodeURIComponent(name.replace(/\+/g, ' '))
    } catch {
      // A malformed name is kept as sent: it names no filter.
    }
    return PERSONAL_PARAMETERS.has(decoded) ? `${name}=~` : pair
  })
  return redactKeyTokens(`${url.slice(0, at)}?${query.join('&')}`)
}
