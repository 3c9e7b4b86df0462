import { Readable } from 'node:stream'
import type { FastifyReply } from 'fastify'

/**
 * An answer already encoded, in pieces: its length is known, so it keeps its Content-Length,
 * and it is encrypted and written a piece at a time as the connection drains, not in one go (a
 * page of 250 events is a few hundred KiB, which TLS takes milliseconds to encrypt).
 */
export function sendPieces(reply: FastifyReply, type: string, pieces: readonly Buffer[]): FastifyReply {
  let size = 0
  for (const piece of pieces) size += piece.length
  return reply.type(type).header('content-length', size).send(Readable.from(pieces))
}

const COMMA = Buffer.from(',')

/**
 * A JSON answer whose array `field` was serialized a slice at a time (`runs`: each the JSON of
 * some items joined by commas, none empty). The rest of the answer is written by the route's own
 * serializer with the array empty, and the runs are put inside it: the bytes are those the
 * serializer writes for the whole answer, without serializing hundreds of items in one turn of
 * the event loop.
 */
export function sendJsonWithItems(reply: FastifyReply, answer: Readonly<Record<string, unknown>>, field: string, runs: readonly Buffer[]): FastifyReply {
  const text = String(reply.serializeInput({ ...answer, [field]: [] }, '200', 'application/json'))
  // Every quote inside a JSON string is escaped, so the first `"<field>":[]` is the member itself.
  const empty = `"${field}":[]`
  const at = text.indexOf(empty)
  /* c8 ignore next */
  if (at === -1) throw new TypeError(`the serialized answer has no empty ${field}`)
  const inside = at + empty.length - 1
  const pieces: Buffer[] = [Buffer.from(text.slice(0, inside))]
  for (const [i, run] of runs.entries()) pieces.push(...i === 0 ? [run] : [COMMA, run])
  pieces.push(Buffer.from(text.slice(inside)))
  return sendPieces(reply, 'application/json; charset=utf-8', pieces)
}
