/** One `waybill <name>` command. `run` resolves to the process exit code. */
export interface CliCommand {
  readonly name: string
  /** One line for `waybill --help`. */
  readonly summary: string
  /** Full text for `waybill <name> --help`. */
  readonly help: string
  run(argv: readonly string[]): Promise<number>
}
