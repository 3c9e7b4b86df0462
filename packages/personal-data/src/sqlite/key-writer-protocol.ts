import type { KeyRequest } from '../key-store.js'

export type ToKeyWorker =
  /** Every `create` asked in one turn of the main thread's event loop, in one message. */
  | { readonly type: 'create'; readonly items: ReadonlyArray<{ readonly id: number; readonly requests: readonly KeyRequest[] }> }
  | { readonly type: 'close' }

/** A key as it crosses threads: a Buffer arrives as a Uint8Array. */
export type PostedKey = { readonly id: string; readonly secret: Uint8Array } | 'erased'

export type FromKeyWorker =
  | { readonly type: 'ready' }
  | { readonly type: 'open_failed'; readonly message: string }
  /** One transaction's keys, in one message: `keys[i]` answers the create whose id is `ids[i]`. */
  | { readonly type: 'created'; readonly ids: readonly number[]; readonly keys: ReadonlyArray<readonly PostedKey[]> }
  | { readonly type: 'failed'; readonly ids: readonly number[]; readonly message: string; readonly code: string | undefined }
  | { readonly type: 'closed' }
