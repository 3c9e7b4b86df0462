/**
 * Waybill's version: what `waybill --version` prints and `waybill_build_info` reports. Its one
 * home; raised with each release (docs/operations.md#upgrades).
 */
export const WAYBILL_VERSION = '0.3.0'
