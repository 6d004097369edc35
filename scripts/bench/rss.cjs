// Preloaded into a measured process: on exit, appends its peak RSS (KiB) to $KW_RSS_FILE.
const file = process.env.KW_RSS_FILE;
if (file) process.on('exit', () => require('fs').appendFileSync(file, `${process.resourceUsage().maxRSS}\n`));
