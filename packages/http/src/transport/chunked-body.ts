const CRLF = Buffer.from('\r\n', 'latin1')
const HEAD_END = Buffer.from('\r\n\r\n', 'latin1')

/**
 * The body of a raw request whose head says `Transfer-Encoding: chunked`, with the chunk-size
 * lines taken out, as far as it is well formed (a key split across two chunks is whole again
 * here); null when the request is not chunked. For scanning only: malformed input ends the
 * decoding, it never throws.
 */
export function dechunkedBody(bytes: Buffer): Buffer | null {
  const headEnd = bytes.indexOf(HEAD_END)
  if (headEnd === -1) return null
  const head = bytes.subarray(0, headEnd).toString('latin1').toLowerCase()
  if (!/\r\ntransfer-encoding:[^\r]*chunked/.test(head)) return null
  const parts: Buffer[] = []
  let at = headEnd + HEAD_END.length
  for (;;) {
    const lineEnd = bytes.indexOf(CRLF, at)
    if (lineEnd === -1) break
    const size = Number.parseInt(bytes.subarray(at, lineEnd).toString('latin1').split(';')[0] ?? '', 16)
    if (!Number.isSafeInteger(size) || size <= 0) break
    const start = lineEnd + CRLF.length
    parts.push(bytes.subarray(start, Math.min(start + size, bytes.length)))
    at = start + size + CRLF.length
    if (at > bytes.length) break
  }
  return Buffer.concat(parts)
}
