import type { Decider } from '@waybill/domain'
import { decide } from './decide.js'
import { evolve } from './evolve.js'
import type { KeyCommand } from './key-commands.js'
import type { KeyErrorCode } from './key-errors.js'
import type { KeyEvent, StoredKeyEvent } from './key-events.js'
import { initialKeyState, type KeyStreamState } from './key-state.js'

/** The API-key decider `handleCommand` runs: pure, no clock, no ids or secrets of its own. */
export const keyDecider: Decider<KeyCommand, KeyEvent, KeyStreamState, KeyErrorCode> = {
  initialState: initialKeyState,
  evolve,
  decide,
}

/** Replays a key stream's facts from the initial state. */
export function foldKeyStream(events: Iterable<StoredKeyEvent>): KeyStreamState {
  let state = initialKeyState()
  for (const event of events) state = evolve(state, event)
  return state
}
