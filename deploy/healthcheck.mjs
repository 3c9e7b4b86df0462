// Container HEALTHCHECK: GET https://127.0.0.1:$WAYBILL_HTTPS_PORT/healthz (liveness, no key).
// The certificate is not checked: this only asks whether this very process answers.
import { request } from 'node:https'

const port = Number(process.env.WAYBILL_HTTPS_PORT ?? 8443)
const req = request({ host: '127.0.0.1', port, path: process.argv[2] ?? '/healthz', rejectUnauthorized: false, timeout: 2_000 }, (res) => {
  res.resume()
  process.exit(res.statusCode === 200 ? 0 : 1)
})
req.on('timeout', () => req.destroy(new Error('timeout')))
req.on('error', () => process.exit(1))
req.end()
