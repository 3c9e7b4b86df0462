/**
 * Runs `work` on every item, at most `limit` at a time: copying images is a write and an fsync
 * each, which the disk serves faster several at once than one after another.
 */
export async function concurrently<T>(items: Iterable<T>, limit: number, work: (item: T) => Promise<void>): Promise<void> {
  const iterator = items[Symbol.iterator]()
  const worker = async (): Promise<void> => {
    for (let next = iterator.next(); next.done !== true; next = iterator.next()) await work(next.value)
  }
  await Promise.all(Array.from({ length: limit }, worker))
}
