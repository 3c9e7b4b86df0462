import type { ProjectorLogger } from '../runner/logger.js'
import { headMaker, type AuditOptions, type HeadVerdict, type TreeView } from './head-maker.js'

/** The audit log's signing, as the projector's status shows it. */
export interface SigningStatus {
  /** Leaves in the audit log after the last batch. */
  readonly treeSize: number
  /** The latest kept head's size, null before the first. */
  readonly headSize: number | null
  /** Why heads are not being signed, if they are not. */
  readonly problem: string | null
}

/** What an operator is told when a verdict stops the signing; null when nothing is wrong. */
export function problemOf(verdict: HeadVerdict): string | null {
  switch (verdict.kind) {
    case 'inconsistent':
      return `the audit tree's root at size ${verdict.head.tree_size} is ${verdict.root}, not the signed head's ${verdict.head.root_hash}: ` +
        'the log or the audit log was changed; no head is signed until `waybill audit verify` is run and the cause found'
    case 'no_key':
      return `no head can be signed: ${verdict.reason}`
    case 'behind':
      return `the audit tree holds ${verdict.treeSize} leaves but a head was signed at ${verdict.headSize}: ` +
        'events were cut from the log, or this audit log has not reached it; no head is signed until it does'
    default:
      return null
  }
}

/**
 * Head signing of the audit projection (docs/audit.md#signed-tree-heads): after each batch the
 * policy (`headMaker`) says whether to sign, and its verdict becomes the status and, once per
 * change, a log line: every batch would bury everything else.
 */
export function headSigning(options: AuditOptions, log: ProjectorLogger) {
  const make = headMaker(options)
  let status: SigningStatus = { treeSize: 0, headSize: options.heads.latest()?.tree_size ?? null, problem: null }
  return {
    /** Signs if due; `force` when the projection stops, so its last leaves get a head. */
    afterBatch(tree: TreeView, caughtUp: boolean, force = false): void {
      const verdict = make(tree, caughtUp, force)
      const problem = problemOf(verdict)
      if (verdict.kind === 'signed') {
        log.info({ audit: { tree_size: verdict.head.tree_size, root_hash: verdict.head.root_hash } }, 'projector: signed a tree head')
      }
      if (problem !== null && problem !== status.problem) {
        log.error({ audit: { problem } }, verdict.kind === 'no_key' ? 'projector: NO TREE-HEAD SIGNING KEY' : 'projector: AUDIT LOG INCONSISTENT WITH A SIGNED HEAD')
      }
      status = { treeSize: tree.size(), headSize: verdict.kind === 'signed' ? verdict.head.tree_size : status.headSize, problem }
    },
    status: (): SigningStatus => status,
  }
}
