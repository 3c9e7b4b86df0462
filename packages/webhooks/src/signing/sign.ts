import { createHmac } from 'node:crypto'
import { secretKey } from './secret.js'

/**
 * The `webhook-signature` header of one message (the Standard Webhooks `v1` scheme): `v1,` and
 * the base64 HMAC-SHA256, keyed with each secret's bytes, over `<webhook-id>.<webhook-timestamp>.<body>`;
 * one signature per secret, separated by spaces (during a rotation's grace, the new secret's and
 * the old one's, so a receiver holding either verifies).
 */
export function signatureHeader(webhookId: string, timestampSeconds: number, body: string, secrets: readonly string[]): string {
  const signed = `${webhookId}.${timestampSeconds}.${body}`
  return secrets.map((secret) => `v1,${createHmac('sha256', secretKey(secret)).update(signed).digest('base64')}`).join(' ')
}
