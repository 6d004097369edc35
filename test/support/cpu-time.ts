// Limits on how long a computation may take are measured in this process's CPU time, not wall time: the wall
// clock grows when other processes load the machine (a CI runner, parallel test files), CPU time grows only with
// the work itself, so such a limit fails when the code is slow and never because the machine was busy.

/** Milliseconds of CPU (user + system) this process has used so far. */
export function cpuMillis(): number {
  const used = process.cpuUsage();
  return (used.user + used.system) / 1000;
}
