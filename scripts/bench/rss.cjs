// Preloaded into a measured process: on exit, appends its peak RSS (KiB) and the CPU time it used
// (user + system, µs) to $KW_RSS_FILE. CPU time is what a loaded machine disturbs least.
const file = process.env.KW_RSS_FILE;
if (file)
  process.on('exit', () => {
    const u = process.resourceUsage();
    require('fs').appendFileSync(file, `${u.maxRSS} ${u.userCPUTime + u.systemCPUTime}\n`);
  });
