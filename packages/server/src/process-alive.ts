/**
 * True when process `pid` is another process that is alive: durable state (a task, a paused run) that such a process
 * holds is left to it. This process's own pid is never "another" (a restarted server may get its old pid back).
 */
export function aliveElsewhere(pid: number | undefined): boolean {
  if (pid === undefined || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
