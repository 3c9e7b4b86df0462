import type { Test } from 'tap'
import type { Reply } from '../harness.js'

/** Checks an error answer: its status, its code, and the problem body around them, with no stack trace. */
export function problem(t: Test, reply: Reply, status: number, code: string): void {
  t.equal(reply.status, status, `status ${status} for ${code} (got ${reply.text})`)
  t.equal(reply.json?.code, code)
  t.match(String(reply.headers['content-type']), /^application\/problem\+json/)
  t.match(reply.json, { type: `/errors/${code}`, status, title: String, detail: String })
  t.notMatch(reply.text, /\bat .*\.(js|ts):\d+/, 'no stack trace')
}
