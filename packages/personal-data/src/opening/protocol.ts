/**
 * A batch of sealed parts to open: the keys they need, and the parts as the JSON text of an array
 * of [key id, context, iv, box] (one string crosses the threads at the cost of a copy; an array of
 * a thousand small arrays of strings is cloned string by string, measured at twice the cost).
 */
export interface ToOpening {
  readonly id: number
  readonly keys: ReadonlyArray<readonly [id: string, secret: Uint8Array]>
  readonly items: string
}

/** A part as `ToOpening.items` lists it. */
export type OpeningItem = readonly [keyId: string, context: string, iv: string, box: string]

/**
 * Each part's text, in the order asked, joined by newlines, an empty line where it did not open.
 * An opened part is JSON, which holds no raw newline and is never empty.
 */
export interface FromOpening {
  readonly id: number
  readonly texts: string
}
