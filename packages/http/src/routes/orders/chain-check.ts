import { verifyStreamChain, type ChainVerdict, type RecordedEvent } from '@waybill/event-store'

/**
 * The verdict on a run of a stream's hash chain, fed a slice at a time: the same verdict as
 * `verifyStreamChain(run, before)` over the whole run, since each slice is checked against the
 * event before it and the first break stops the checking. Each event is hashed (its canonical
 * JSON), so a thousand events checked in one go would hold the event loop for milliseconds. The
 * run starts after the events given to `skip`, or at the stream's first event.
 */
export class ChainCheck {
  #before: RecordedEvent | null = null
  #verdict: ChainVerdict = { ok: true }

  /** Events before the run, not checked: the run's first must link to the last of them. */
  skip(events: readonly RecordedEvent[]): void {
    this.#before = events.at(-1) ?? this.#before
  }

  /** Checks the next events of the run. */
  add(events: readonly RecordedEvent[]): void {
    if (this.#verdict.ok && events.length > 0) this.#verdict = verifyStreamChain(events, this.#before)
    this.#before = events.at(-1) ?? this.#before
  }

  get verdict(): ChainVerdict {
    return this.#verdict
  }
}

