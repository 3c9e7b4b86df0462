import { openMemoryKeyStore } from '../src/index.js'
import { keyStoreContract } from './contract.js'

keyStoreContract('in memory', () => Promise.resolve(openMemoryKeyStore()))
