/**
 * RFC 9162's split point: the largest power of two smaller than `n` (n ≥ 2). Arithmetic, not
 * bit operators, which would truncate sizes past 2^31.
 */
export function splitPoint(n: number): number {
  let k = 1
  while (k * 2 < n) k *= 2
  return k
}

/** The level of `size` when it is a power of two (2^level), or null. */
export function perfectLevel(size: number): number | null {
  let level = 0
  let power = 1
  while (power < size) {
    power *= 2
    level += 1
  }
  return power === size ? level : null
}

/** Whether `value` is a whole number from 0 to 2^53 − 1: a valid tree size or leaf index. */
export function isTreeIndex(value: number): boolean {
  return Number.isSafeInteger(value) && value >= 0
}
