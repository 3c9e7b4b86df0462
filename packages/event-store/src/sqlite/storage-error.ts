import { StoreUnavailableError } from '../errors.js'

/**
 * SQLite result codes that mean "the store cannot do this now" rather than "this request is
 * wrong": disk full, I/O failure, another writer holding the lock past busy_timeout, and the like.
 * They become StoreUnavailableError so that callers answer 503 and retry, never a false success.
 */
const UNAVAILABLE = ['SQLITE_FULL', 'SQLITE_IOERR', 'SQLITE_BUSY', 'SQLITE_LOCKED', 'SQLITE_CANTOPEN',
  'SQLITE_READONLY', 'SQLITE_NOMEM', 'SQLITE_PROTOCOL', 'SQLITE_CORRUPT', 'SQLITE_NOTADB', 'SQLITE_NOLFS']

export function isStorageFailure(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' && UNAVAILABLE.some((prefix) => code === prefix || code.startsWith(`${prefix}_`))
}

/** Wraps a storage failure; any other error passes through unchanged. */
export function toStoreError(error: unknown): unknown {
  if (!isStorageFailure(error)) return error
  const code = (error as { code: string }).code
  return new StoreUnavailableError(`sqlite: ${code}: ${(error as Error).message}`, { cause: error })
}
