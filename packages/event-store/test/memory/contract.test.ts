import t from 'tap'
import { openMemoryEventStore } from '../../src/index.js'
import { eventStoreContract } from '../contract.js'

await eventStoreContract(t, {
  name: 'memory (unit tests and the benchmark)',
  open: async () => openMemoryEventStore(),
})
