// Container HEALTHCHECK. `serve`: GET https://127.0.0.1:$WAYBILL_HTTPS_PORT/healthz (liveness, no
// key; the certificate is not checked: this only asks whether this very process answers).
// `--projector`: GET http://127.0.0.1:$WAYBILL_PROJECTOR_PORT/readyz (the projector reaches the store).
import { request as httpRequest } from 'node:http'
import { request as httpsRequest } from 'node:https'

const projector = process.argv[2] === '--projector'
const options = projector
  ? { host: '127.0.0.1', port: Number(process.env.WAYBILL_PROJECTOR_PORT ?? 9465), path: '/readyz', timeout: 2_000 }
  : { host: '127.0.0.1', port: Number(process.env.WAYBILL_HTTPS_PORT ?? 8443), path: process.argv[2] ?? '/healthz', rejectUnauthorized: false, timeout: 2_000 }
const req = (projector ? httpRequest : httpsRequest)(options, (res) => {
  res.resume()
  process.exit(res.statusCode === 200 ? 0 : 1)
})
req.on('timeout', () => req.destroy(new Error('timeout')))
req.on('error', () => process.exit(1))
req.end()
