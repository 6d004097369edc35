// Preloaded into a measured process: on exit, appends its peak RSS (KiB), the CPU time it used (user +
// system, µs) and the CPU time of its main thread alone (µs; from /proc, -1 where there is none) to
// $KW_RSS_FILE. CPU time is what a loaded machine disturbs least; the main thread's share says what
// V8's collector and compiler threads (and check workers) spent beside it.
const file = process.env.KW_RSS_FILE;
const fs = require('fs');

function mainThreadMicros() {
  try {
    const stat = fs.readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime, in clock ticks of 10 ms (fields 14 and 15 of proc(5), counted from the state field).
    return (Number(fields[11]) + Number(fields[12])) * 10_000;
  } catch {
    return -1;
  }
}

// Preloads run in worker threads too: the process's figures are written once, by its main thread.
if (file && require('worker_threads').isMainThread)
  process.on('exit', () => {
    const u = process.resourceUsage();
    fs.appendFileSync(file, `${u.maxRSS} ${u.userCPUTime + u.systemCPUTime} ${mainThreadMicros()}\n`);
  });
