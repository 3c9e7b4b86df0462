// tap's coverage map (taprc.base.yaml): each test file's coverage counts toward its package's
// sources, and nothing else.
//
// Without a map, tap leaves out of coverage only `<package>/node_modules`; pnpm installs the
// packages in the workspace's node_modules/.pnpm, outside it, so every test process, worker
// thread and child process wrote the coverage and source maps of every dependency it loaded
// (3-8 MB a process, ~200 MB for the cli suite) for a report that never shows them. The report
// is the same either way.
export default function coveredBy() {
  return 'src/**/*.ts'
}
