import type { Gauge, Registry } from 'prom-client'

/** One sample read at scrape time; `suffix` names a histogram's part (`_bucket`, `_sum`, `_count`). */
export interface Sample {
  readonly value: number
  readonly labels?: Readonly<Record<string, string>>
  readonly suffix?: '_bucket' | '_sum' | '_count'
}

export interface ScrapedMetric {
  readonly name: string
  readonly help: string
  readonly type: 'gauge' | 'counter' | 'histogram'
  /** The samples now; none leaves the metric without a sample (a head not signed yet has no age). */
  read(): readonly Sample[] | Promise<readonly Sample[]>
}

/**
 * Registers a metric whose samples are read when it is scraped, printed with the type they are.
 * prom-client's own classes keep values they are given: a Gauge set at scrape time is always
 * typed gauge (a monotonic total is a counter), a Histogram can only be fed one observation at a
 * time (the store's group-commit counts would be observed twice), and an unlabelled gauge always
 * has a sample. The registry prints any object with a name and a `get()`; its typings know
 * only its own four classes, hence the one cast.
 */
export function registerScraped(registry: Registry, metric: ScrapedMetric): void {
  const { name, help, type } = metric
  // A read that fails (a file busy or gone) leaves this metric without samples for this scrape,
  // rather than failing the whole scrape and every other metric with it.
  const read = async (): Promise<readonly Sample[]> => {
    try {
      return await metric.read()
    } catch {
      return []
    }
  }
  const scraped = {
    name, help, type, aggregator: 'sum',
    get: async () => ({
      name, help, type, aggregator: 'sum',
      values: (await read()).map((sample) => ({ value: sample.value, labels: sample.labels ?? {}, metricName: name + (sample.suffix ?? '') })),
    }),
    reset() {},
  }
  registry.registerMetric(scraped as unknown as Gauge)
}
