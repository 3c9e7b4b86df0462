import type { KeyRequest } from '../key-store.js'

export type ToKeyWorker =
  | { readonly type: 'create'; readonly id: number; readonly requests: readonly KeyRequest[] }
  | { readonly type: 'close' }

/** A key as it crosses threads: a Buffer arrives as a Uint8Array. */
export type PostedKey = { readonly id: string; readonly secret: Uint8Array } | 'erased'

export type FromKeyWorker =
  | { readonly type: 'ready' }
  | { readonly type: 'open_failed'; readonly message: string }
  | { readonly type: 'created'; readonly id: number; readonly keys: readonly PostedKey[] }
  | { readonly type: 'failed'; readonly ids: readonly number[]; readonly message: string; readonly code: string | undefined }
  | { readonly type: 'closed' }
