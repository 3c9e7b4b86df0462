import { Type } from 'typebox'
import { LIMITS } from '@waybill/domain'
import { integer, pageSize } from '@waybill/domain/wire'

const Hex = (description: string) => Type.String({ pattern: '^[0-9a-f]{64}$', description })

export const TreeHeadSchema = Type.Object({
  tree_size: Type.Integer({ minimum: 0, description: 'Leaves (order events) the head covers' }),
  root_hash: Hex('RFC 9162 root of the first tree_size leaves, lowercase hex'),
  timestamp: Type.String({ description: 'When it was signed: RFC 3339 UTC with milliseconds' }),
  signature: Type.String({ description: 'Base64 of the Ed25519 signature over "waybill-tree-head/v1\\n<tree_size>\\n<root_hash>\\n<timestamp>\\n"' }),
  key_id: Type.String({ description: 'First 16 hex of sha256 over the raw public key' }),
}, { description: 'A signed tree head (docs/audit.md#signed-tree-heads)' })

export const HeadListSchema = Type.Object({
  heads: Type.Array(TreeHeadSchema, { description: 'Ascending tree_size' }),
  next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as `after` for the next page; null on the last' }),
}, { description: 'A page of signed tree heads, ascending tree_size, and the cursor of the next page' })

export const HeadListQuery = Type.Object({
  after: Type.Optional(integer('Only heads of a larger tree_size', 0)),
  limit: Type.Optional(pageSize('Tree sizes on a page (a key rotation\'s size has a head of each key)', LIMITS.headsPageMax, LIMITS.headsPageDefault)),
})

export const PublicKeySchema = Type.Object({
  algorithm: Type.Literal('Ed25519'),
  public_key: Type.String({ description: 'Base64 of the raw 32-byte public key' }),
  public_key_pem: Type.String({ description: 'The same key as SPKI PEM' }),
  key_id: Type.String({ description: 'First 16 hex of sha256 over the raw public key' }),
}, { description: 'The Ed25519 public key that verifies the signed tree heads (the current one)' })

const KeyStatementSchema = Type.Object({
  kind: Type.Union([Type.Literal('rotated'), Type.Literal('lost')], { description: '`rotated`: the old key endorsed the new one; `lost`: the old key was lost, only the new one signed' }),
  old_key_id: Type.String({ description: 'The key it replaced' }),
  new_key_id: Type.String({ description: 'This key' }),
  new_public_key: Type.String({ description: 'Base64 of this key\'s raw 32 bytes' }),
  tree_size: Type.Integer({ minimum: 0, description: 'The latest head\'s size when the key changed: the old key signs nothing past it, the new nothing before' }),
  root_hash: Hex('The root at that size'),
  timestamp: Type.String({ description: 'When the key changed: the old key\'s heads are not later, the new key\'s not earlier' }),
  signature: Type.String({ description: 'Base64 of the new key\'s Ed25519 signature over "waybill-key-statement/v1\\n<kind>\\n<old_key_id>\\n<new_key_id>\\n<new_public_key>\\n<tree_size>\\n<root_hash>\\n<timestamp>\\n"' }),
  endorsement: Type.Union([Type.String(), Type.Null()], { description: 'Base64 of the old key\'s signature over the same text (`rotated`); null when it was lost' }),
}, { description: 'The signed statement by which a key took over from the one before it (docs/audit.md#key-lifecycle)' })

const AuditKeySchema = Type.Object({
  ...PublicKeySchema.properties,
  status: Type.Union([Type.Literal('current'), Type.Literal('retired')], { description: '`current`: heads are signed with it now' }),
  valid_from: Type.Union([Type.String(), Type.Null()], { description: 'When it took over; null for the log\'s first key' }),
  valid_until: Type.Union([Type.String(), Type.Null()], { description: 'When it was retired; null while current' }),
  replaces: Type.Union([KeyStatementSchema, Type.Null()], { description: 'How it took over; null for the log\'s first key' }),
}, { description: 'A key of the log\'s key set' })

export const PublicKeyListSchema = Type.Object({
  keys: Type.Array(AuditKeySchema, { description: 'In the order the keys took over; the last is the current one' }),
}, { description: 'Every key that verifies the signed tree heads (docs/audit.md#key-lifecycle)' })

export const ConsistencyQuery = Type.Object({
  first: integer('The older tree size', 0),
  second: integer('The newer tree size, at most the latest signed head\'s', 0),
})

export const ConsistencySchema = Type.Object({
  first: Type.Integer(),
  second: Type.Integer(),
  proof: Type.Array(Hex('A node of the RFC 9162 consistency proof'), { description: 'Empty when first is 0 or equals second' }),
}, { description: 'The RFC 9162 consistency proof between the trees of sizes first and second' })

export const ProofSchema = Type.Object({
  head: Type.Union([TreeHeadSchema, Type.Null()], { description: 'The latest signed head; null until the first one is signed' }),
  next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as `after` for the next page of events; null on the last' }),
  entries: Type.Array(Type.Object({
    event_id: Type.String(),
    revision: Type.Integer(),
    leaf_index: Type.Union([Type.Integer(), Type.Null()], { description: 'null until the projector has added the event to the tree' }),
    leaf_hash: Hex('SHA-256(0x00 ‖ leaf bytes), as the tree holds it (recomputed from the event when not yet in the tree)'),
    audit_path: Type.Union([Type.Array(Hex('A sibling on the path to the root, nearest first')), Type.Null()], {
      description: 'RFC 9162 inclusion proof against head; null when the event is past head.tree_size (not yet covered)' }),
  })),
}, { description: 'The latest signed head and, for each event of the order, its leaf and its inclusion proof against that head' })

const SealStatementSchema = Type.Object({
  old_tree_size: Type.Integer({ minimum: 0, description: 'Leaves of the tree the seal replaced' }),
  old_root_hash: Hex('Its root'),
  new_tree_size: Type.Integer({ minimum: 0, description: 'Leaves of the sealed tree that replaced it (the same events, sealed)' }),
  new_root_hash: Hex('Its root'),
  timestamp: Type.String({ description: 'When the log was sealed' }),
  reason: Type.String({ description: 'Why, as the operator said it' }),
  requested_by: Type.String({ description: 'Who asked' }),
  key_id: Type.String({ description: 'The key that signed it' }),
  signature: Type.String({ description: 'Base64 of the Ed25519 signature over "waybill-seal-statement/v1\\n<old_tree_size>\\n<old_root_hash>\\n<new_tree_size>\\n<new_root_hash>\\n<timestamp>\\n<key_id>\\n<reason as JSON>\\n<requested_by as JSON>\\n"' }),
}, { description: 'The signed record that the log was sealed (docs/audit.md#sealing)' })

export const SealListSchema = Type.Object({
  seals: Type.Array(Type.Object({
    statement: SealStatementSchema,
    closing_head: TreeHeadSchema,
    new_head: TreeHeadSchema,
    sealed_heads: Type.Array(Type.Object({
      head: TreeHeadSchema,
      proof: Type.Array(Hex('A node of the RFC 9162 consistency proof from this head to the closing head')),
    }), { description: 'The heads signed before the seal, ascending, each with its proof to the closing head' }),
    finished_at: Type.Union([Type.String(), Type.Null()], { description: 'When the sealed log was in place and the projections rebuilt over it; null until then' }),
  }), { description: 'Oldest first; empty for a log never sealed' }),
}, { description: 'Every seal of the log: the statement, the closing head over the old tree, the new tree\'s head, and the heads set aside with their proofs' })
