// Test only, never shipped: loaded with `node --expose-gc --require` into the language server under soak
// (test/soak/language-server.test.ts). On {sample: id} over the IPC channel it collects garbage and
// answers with the same shape as measureSelf() in test/support/soak.ts: heap, RSS, handles by kind, armed
// timers, open file descriptors and the listeners on the process and its stdio (the server's transport).
'use strict';
// eslint-disable-next-line @typescript-eslint/no-require-imports -- plain CommonJS, loaded by node --require
const { readdirSync } = require('node:fs');

// Timers armed and not yet fired or cleared, ref'd or not (process.getActiveResourcesInfo() counts only
// the ref'd ones): wrapped before the server loads, as trackTimers() in test/support/soak.ts does.
const armed = new Set();
const pruneTimers = () => {
  for (const t of armed) if (t._destroyed) armed.delete(t);
  return armed.size;
};
for (const name of ['setTimeout', 'setInterval']) {
  const original = global[name];
  global[name] = Object.assign((...args) => {
    const timer = original(...args);
    if (armed.add(timer).size % 1024 === 0) pruneTimers();
    return timer;
  }, original);
}

const listenerCount = (emitter) => emitter.eventNames().reduce((n, name) => n + emitter.listenerCount(name), 0);

function measure(id) {
  pruneTimers();
  global.gc();
  global.gc();
  const memory = process.memoryUsage();
  const counts = {};
  for (const kind of process.getActiveResourcesInfo()) counts[`handles.${kind}`] = (counts[`handles.${kind}`] ?? 0) + 1;
  counts.timers = pruneTimers();
  counts.fds = readdirSync('/proc/self/fd').length;
  counts['listeners.process'] = listenerCount(process);
  counts['listeners.stdin'] = listenerCount(process.stdin);
  counts['listeners.stdout'] = listenerCount(process.stdout);
  process.send({ sample: id, heapUsed: memory.heapUsed, rss: memory.rss, counts });
}

// Measured once what the last message started has run (its immediates, a zero-delay timer): handles in
// flight at that instant are not what the session keeps.
process.on('message', (message) => {
  if (message && typeof message.sample === 'number') setTimeout(() => measure(message.sample), 20);
});
