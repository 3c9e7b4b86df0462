import type { SubjectKeyStore } from '@waybill/personal-data'
import { GenerationFollower } from '../generation/follower.js'
import { READ_MODEL_FILES } from '../generation/pointer.js'
import type { ProjectorLogger } from '../runner/logger.js'
import type { Projection } from '../runner/projection.js'
import { keyStoreOpener } from './opener.js'
import { ORDERS_PROJECTION, ReadModelWriter, type BatchOutcome } from './writer.js'

/**
 * The `orders` read model as a projection: the live file found through its generation pointer
 * (followed after a `waybill rebuild`), and an unknown event type logged and passed over.
 */
export function ordersProjection(dataDir: string, keys: Pick<SubjectKeyStore, 'get'>, log: ProjectorLogger): Projection<BatchOutcome> {
  const open = keyStoreOpener(keys)
  const file = new GenerationFollower(dataDir, READ_MODEL_FILES, (path) => {
    const writer = new ReadModelWriter(path, { open })
    log.info({ readModel: path }, 'projector: read model opened')
    return writer
  })
  return {
    name: ORDERS_PROJECTION,
    open: () => file.current(),
    afterBatch(outcome) {
      for (const event of outcome.unknown) {
        log.warn({ stream: event.streamName, revision: event.revision, type: event.type }, 'projector: unknown event type skipped')
      }
    },
    close: () => file.close(),
  }
}
