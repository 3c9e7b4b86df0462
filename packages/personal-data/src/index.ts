/**
 * Personal data sealed per data subject (docs/design.md#personal-data): the subject key store
 * (kept apart from the event store and its backups), sealing a delivery's personal fields and
 * images with its order's key, and opening them again for readers, null once the key is destroyed.
 */
export type { ErasedKey, ErasureNote, KeyErasure, KeyLookup, KeyRequest, OrderRef, SubjectKeyStore } from './key-store.js'
export { openSqliteKeyStore, type SqliteKeyStoreOptions } from './sqlite/sqlite-key-store.js'
export { KEY_DATABASE_FILE } from './sqlite/key-database.js'
export { openMemoryKeyStore } from './memory-key-store.js'
export { forgetKey, openImage, openImagePieces, openJson, SealBrokenError, type OrderKey } from './seal.js'
export { imageContext, orderSealer, personalContext, type SealedBlob } from './order-sealer.js'
export { MissingKeyError, openOrderEvent, orderEventOpener } from './open-event.js'
export { sealDelivery, type SealedDelivery } from './seal-delivery.js'
export { OpeningThreads, type SealedItem } from './opening/opening-thread.js'
