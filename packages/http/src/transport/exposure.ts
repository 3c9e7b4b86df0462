import { revokeExposedKey, type ExposureResult, type KeyRing } from '@waybill/keys'

/** Revokes and replaces every key given, all at once; resolves with those that were live. */
export type RevokeExposed = (presented: readonly string[]) => Promise<readonly ExposureResult[]>

/**
 * Keys seen on plain HTTP are revoked, and each is replaced for its account and scopes, before
 * the refusal is answered: the store's append is durable when it resolves. All of them are tried
 * even when one fails (a store hiccup must not spare the rest); the first failure is then thrown,
 * so the caller answers a retryable error rather than claim a revocation that did not happen.
 */
export function exposureHandler(keys: KeyRing, dataDir: string, log: { warn(object: object, message: string): void }): RevokeExposed {
  return async (presented) => {
    const outcomes = await Promise.allSettled(presented.map((key) => revokeExposedKey(keys, dataDir, key)))
    const failed = outcomes.find((outcome) => outcome.status === 'rejected')
    if (failed !== undefined) throw failed.reason
    const revoked = outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' && outcome.value !== null ? [outcome.value] : []))
    for (const result of revoked) log.warn(result, 'API key seen over plain HTTP: revoked and replaced')
    return revoked
  }
}
