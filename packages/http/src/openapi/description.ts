import { ERROR_CATALOGUE, LIMITS, type ErrorCode } from '@waybill/domain'

/**
 * The document's own description: what an integrator needs without the repository (the error
 * catalogue, the limits, the event-id header, where /metrics is), written from the catalogue and
 * the limits themselves so that it cannot drift from them.
 */
export function openApiDescription(): string {
  const codes = (Object.keys(ERROR_CATALOGUE) as ErrorCode[])
    .map((code) => `| \`${code}\` | ${code === 'server_error' ? '500, or 503 with Retry-After' : ERROR_CATALOGUE[code].status} | ${ERROR_CATALOGUE[code].title} |`)
  return [
    'Delivery events over HTTPS, and the orders they make. Every request carries an API key in the `Service-Api-Key` header, except the routes marked as needing none. Plain HTTP is refused (`insecure_connection`) and the key it exposed is revoked.',
    '',
    'A delivery accepted answers 201 (ORDER_ADD) or 202 (the other three events) with an empty body and the stored event\'s id in `Waybill-Event-Id`. Event ids are deterministic: sending the same event again answers the same status and id, so a client that is unsure whether an event landed (a timeout, a 503) sends it again unchanged.',
    '',
    '## Errors',
    '',
    'Every error is an RFC 9457 problem body (`application/problem+json`) with a `code` to branch on; `GET /errors/{code}` describes a code. A refused payload lists every wrong field in `errors`, each with a JSON pointer; `detail` names the first. Every answer carries `X-Request-Id` (a request may send its own, 1 to 128 characters of `A-Z a-z 0-9 . _ : -`).',
    '',
    'A path asked with a method it does not take (e.g. `PUT /v1/deliveries`) answers 405 `method_not_allowed` (a problem body) with an `Allow` header listing the methods the path takes, comma-separated (RFC 9110 §15.5.6, e.g. `Allow: POST`); a path that does not exist answers 404 `not_found`. The operations of this document are the methods each path takes, so no operation lists the 405.',
    '',
    '| code | status | title |',
    '|---|---|---|',
    ...codes,
    '',
    '## Limits',
    '',
    `- A request body: at most ${LIMITS.bodyMaxBytes} bytes (\`payload_too_large\`); at most ${LIMITS.bodyMaxDepth} levels of nesting, ${LIMITS.bodyMaxFields} values or form fields, ${LIMITS.bodyMaxMarkupBytes} bytes of markup and ${LIMITS.bodyMaxEscapes} JSON escapes (\`bad_request\`).`,
    `- \`order_id\`: 1 to ${LIMITS.orderIdMaxLength} characters; every other text field 1 to ${LIMITS.stringMaxLength} (Unicode code points), not blank, no control characters.`,
    `- Timestamps: UTC, \`YYYY-MM-DDTHH:MM:SSZ\` with up to ${LIMITS.fractionMaxDigits} fraction digits.`,
    `- Images (\`pod\`, \`signature\`): a data URL of image/jpeg, image/png or image/webp, strict base64 on one line, at most ${LIMITS.imageMaxBytes} bytes decoded.`,
    '- Requests per key and per client address are limited; past a limit the answer is 429 `rate_limited` with `Retry-After` (seconds).',
    '',
    '## Metrics',
    '',
    '`GET /metrics` (Prometheus text) is not served on this API\'s address: it has a listener of its own, plain HTTP without a key, on the operator\'s network (`WAYBILL_METRICS_HOST`, default 127.0.0.1, and `WAYBILL_METRICS_PORT`). It is for the operator\'s scraper, not for couriers, so it is not an operation of this document.',
  ].join('\n')
}
