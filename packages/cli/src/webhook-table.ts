import type { DeliveryAttempt, EndpointSummary } from '@waybill/webhooks'

/** A time to the second, as operators read it: `2025-03-01 08:00:12Z`. */
function second(time: string | null): string {
  return time === null ? '-' : `${time.slice(0, 10)} ${time.slice(11, 19)}Z`
}

/** Rows under column headers, each column as wide as its widest cell (the last one unpadded). */
function table(headers: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const lines = [headers, ...rows]
  const widths = headers.map((_, column) => Math.max(...lines.map((line) => (line[column] ?? '').length)))
  return lines.map((line) => line.map((cell, column) => column === line.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)).join('  ').trimEnd()).join('\n')
}

/** `waybill webhooks list`: one endpoint a line; why a disabled one was disabled, in its notes. */
export function endpointTable(endpoints: readonly EndpointSummary[]): string {
  return table(['ID', 'STATE', 'URL', 'ACCOUNT', 'EVENTS', 'BACKLOG', 'OLDEST PENDING', 'LAST SUCCESS', 'NOTES'], endpoints.map((endpoint) => [
    endpoint.id, endpoint.state, endpoint.url, endpoint.account ?? '*', endpoint.events === null ? 'all' : endpoint.events.join(','),
    String(endpoint.backlog), second(endpoint.oldest_pending_at), second(endpoint.last_success_at),
    [
      endpoint.disabled_reason === null ? '' : `disabled ${second(endpoint.disabled_at)}: ${endpoint.disabled_reason}`,
      endpoint.held_until === null ? '' : `held until ${second(endpoint.held_until)} (Retry-After)`,
      endpoint.signing_secrets > 1 ? `${endpoint.signing_secrets} secrets sign (rotation grace)` : '',
    ].filter(Boolean).join('; ') || '-',
  ]))
}

/** `waybill webhooks deliveries`: one attempt a line, newest first. */
export function attemptTable(attempts: readonly DeliveryAttempt[]): string {
  return table(['AT', 'ENDPOINT', 'WEBHOOK ID', 'EVENT', 'ORDER', 'OUTCOME', 'STATUS', 'MS', 'ERROR'], attempts.map((attempt) => [
    second(attempt.at), attempt.endpoint_id, attempt.webhook_id, `${attempt.event_type}@${attempt.revision}`,
    `${attempt.account}/${attempt.order_id}`, attempt.outcome, attempt.status === null ? '-' : String(attempt.status),
    String(attempt.duration_ms), attempt.error ?? '-',
  ]))
}
