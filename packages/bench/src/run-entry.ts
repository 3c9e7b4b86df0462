/**
 * Runs a benchmark's command-line entry (`pnpm bench`, `bench:scale`, `bench:webhooks`): the number
 * `main` resolves with is the exit code; an error it throws is printed after the command's name
 * and exits 1.
 */
export function runEntry(command: string, main: (argv: readonly string[]) => Promise<number>): void {
  main(process.argv.slice(2)).then(
    (code) => { process.exitCode = code },
    (error: unknown) => {
      process.stderr.write(`${command}: ${error instanceof Error ? error.message : String(error)}\n`)
      process.exitCode = 1
    },
  )
}
