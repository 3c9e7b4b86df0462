import type { Env } from './command.js'
import { loadConfig, type WaybillConfig } from './config.js'
import { openStore, type OpenedStore, type OpenStoreOptions } from './open-store.js'

// Apart from open-store.ts, which serve's projector thread loads: the thread is given its
// configuration, and loading the schema's validator would slow each of its starts.

/**
 * The prologue of a command that works on the store and ends: the configuration from `env`, the
 * store opened with `options`, `use`, then the store closed whatever happened.
 */
export async function withStore<T>(env: Env, options: OpenStoreOptions, use: (opened: OpenedStore, config: WaybillConfig) => Promise<T>): Promise<T> {
  const config = loadConfig(env)
  const opened = await openStore(config, options)
  try {
    return await use(opened, config)
  } finally {
    await opened.close()
  }
}
