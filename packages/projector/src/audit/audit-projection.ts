import { GenerationFollower } from '../generation/follower.js'
import { AUDIT_LOG_FILES } from '../generation/pointer.js'
import type { ProjectorLogger } from '../runner/logger.js'
import type { Projection } from '../runner/projection.js'
import { AuditLogWriter } from './audit-log-writer.js'
import type { AuditOptions } from './head-maker.js'
import { headSigning, type SigningStatus } from './head-signing.js'
import { LEAF_READ } from './leaf.js'

const AUDIT_PROJECTION = 'audit'

export interface AuditProjection extends Projection {
  /** Its tree's size, the latest head's, and why heads are not signed, if they are not. */
  signing(): SigningStatus
}

/**
 * The audit log as a projection of its own (docs/audit.md#the-audit-log-file): its own file
 * (found through `audit-log.current`, followed after a `waybill audit rebuild`), its own
 * checkpoint, and the signing of heads after each batch and once more when it stops.
 */
export function auditProjection(dataDir: string, options: AuditOptions, log: ProjectorLogger): AuditProjection {
  const file = new GenerationFollower(dataDir, AUDIT_LOG_FILES, (path) => {
    const writer = new AuditLogWriter(path)
    log.info({ auditLog: path }, 'projector: audit log opened')
    return writer
  })
  const signing = headSigning(options, log)
  // The writer the last batch went to: a head is signed over the tree that batch grew, even if
  // a swap happened since (the next batch follows it).
  let writer: AuditLogWriter | null = null
  return {
    name: AUDIT_PROJECTION,
    read: LEAF_READ,
    open: () => (writer = file.current()),
    afterBatch(_outcome, caughtUp) {
      if (writer !== null) signing.afterBatch(writer.tree, caughtUp)
    },
    beforeStop() {
      if (writer === null) return
      try {
        signing.afterBatch(writer.tree, true, true)
      } catch (error) {
        log.error({ err: error }, 'projector: could not sign the last tree head')
      }
    },
    close() {
      file.close()
      writer = null
    },
    signing: () => signing.status(),
  }
}
