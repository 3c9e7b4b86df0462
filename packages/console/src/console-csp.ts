/**
 * The console's Content-Security-Policy: its own scripts, styles and API only; images also from
 * blob: (the proof-of-delivery and signature, fetched with the key) and data:. No inline script or
 * style, no framing, no forms posted anywhere, no plugins, no <base>.
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' blob: data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "object-src 'none'",
].join('; ')
