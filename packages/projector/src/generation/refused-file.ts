/**
 * A projection's file this Waybill will not use, for a reason found in the file (its schema
 * version). The message names the file, for the operator's log; `summary` says why without
 * naming it, for a reader that must not see paths (the keyless readiness probe).
 */
export class RefusedFileError extends Error {
  constructor(
    /** What the file is: `read model`. */
    readonly what: string,
    /** Why it is refused, without its path: `schema version 5, newer than this Waybill's 4`. */
    readonly summary: string,
    message: string,
  ) {
    super(message)
    this.name = 'RefusedFileError'
  }
}
