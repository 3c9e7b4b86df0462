/** A small deterministic generator, so that a failing random case is the same case on every run. */
export function seededRandom(seed: number) {
  let state = seed >>> 0
  const next = (): number => {
    // mulberry32
    state = (state + 0x6d2b79f5) >>> 0
    let value = state
    value = Math.imul(value ^ (value >>> 15), value | 1)
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61)
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296
  }
  return {
    next,
    below: (n: number): number => Math.floor(next() * n),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T,
  }
}
