import { isIPv4 } from 'node:net'

/** Bad operator input (a URL, an event name, an account, an id); the message names what is wrong. */
export class WebhookInputError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'WebhookInputError'
  }
}

/** The longest endpoint URL taken. */
const URL_MAX_LENGTH = 2048

/**
 * An endpoint URL as the operator gave it, checked (docs/operations.md#webhooks): an absolute
 * `https:` URL, or `http:` to a loopback address (127.0.0.0/8, ::1, localhost) for development;
 * no credentials in it (the signature authenticates Waybill; a password in a URL ends up in
 * listings and logs) and no fragment. Throws `WebhookInputError` naming the URL otherwise.
 */
export function parseEndpointUrl(text: string): URL {
  if (text.length > URL_MAX_LENGTH) throw new WebhookInputError(`the URL is longer than ${URL_MAX_LENGTH} characters`)
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw new WebhookInputError(`"${text}" is not a URL (write it whole: https://host/path)`)
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new WebhookInputError(`"${text}" is not an https: URL`)
  }
  if (url.protocol === 'http:' && !isLoopback(url.hostname)) {
    throw new WebhookInputError(`"${text}" is not HTTPS: plain http: is taken only for a loopback address (127.0.0.1, [::1], localhost)`)
  }
  if (url.username !== '' || url.password !== '') throw new WebhookInputError(`"${url.host}": no credentials in the URL (the signature authenticates Waybill)`)
  if (url.hash !== '') throw new WebhookInputError(`"${text}": a URL with a #fragment (a receiver never sees it)`)
  return url
}

/** Whether a URL's hostname is this machine's loopback: 127.0.0.0/8, ::1 or localhost. */
export function isLoopback(hostname: string): boolean {
  if (hostname === 'localhost' || hostname === '[::1]') return true
  return isIPv4(hostname) && hostname.startsWith('127.')
}
