export * from './port.js'
export * from './errors.js'
