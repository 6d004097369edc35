// `--watch` of `nodes` and `pods`: kubectl's `get -w` (the table, then a line per change, until Ctrl-C,
// which ends it with exit 0), over list-watches that outlive the API server: when it goes away a
// "reconnecting" line goes to stderr (once per outage), the watch lists again by itself once the server
// answers (same data, a fresh etcd, or after 410 Gone) and prints only what changed meanwhile
// (core/watch-printer.ts), then says on stderr that it is watching again. A failure a retry cannot cure
// (credentials, permissions) ends it with the error, as a first list that fails does.
import { watchFailure, type ListWatchHandlers } from '../cluster/list-watch';
import type { Followed } from '../cluster/listing-watch';
import type { WatchPrinter } from '../core/watch-printer';
import { EXIT, userMessage, warn } from './kit';

/** Seconds one watch request stays open before it is resumed (the server's timeoutSeconds); default 300. */
const WATCH_TIMEOUT_ENV = 'KUBE_WINDOWS_WATCH_TIMEOUT';

export function watchTimeoutSeconds(env: NodeJS.ProcessEnv = process.env): number | undefined {
  const v = Number(env[WATCH_TIMEOUT_ENV]);
  return Number.isInteger(v) && v > 0 ? v : undefined;
}

export interface WatchRun<T> {
  context: string;
  /** What is watched, for the words ("Windows nodes", "pods"). */
  what: string;
  printer: WatchPrinter<T>;
  /** Said on stderr when the first list finds nothing (the header waits for the first row). */
  nothing: string;
  follow(on: ListWatchHandlers<T>): Followed;
}

/** Prints and follows until Ctrl-C (exit 0) or a failure that retrying cannot cure. */
export function watchAndPrint<T>(run: WatchRun<T>): Promise<number> {
  return new Promise<number>((resolve) => {
    let started = false;
    let reconnecting = false;
    let ended = false;
    const write = (text: string) => {
      if (text) process.stdout.write(text);
    };
    const end = (code: number) => {
      if (ended) return;
      ended = true;
      process.removeListener('SIGINT', onSigint);
      clearInterval(keepAlive);
      followed.stop();
      resolve(code);
    };
    // The list-watch's retry timer does not keep a process alive (the extension host must be free to exit):
    // this one does, while the server is away and no socket is open.
    const keepAlive = setInterval(() => undefined, 1 << 30);
    const onSigint = () => end(EXIT.OK);
    process.once('SIGINT', onSigint);
    const followed = run.follow({
      listed(items) {
        if (started) return write(run.printer.sync(items, Date.now()));
        started = true;
        if (items.length === 0) warn(run.nothing);
        write(run.printer.start(items, Date.now()));
      },
      event(type, object) {
        if (started) write(run.printer.event(type, object, Date.now()));
      },
      failed(err) {
        if (!started) {
          warn(userMessage(err, run.context));
          return end(EXIT.USAGE);
        }
        const e = watchFailure(err, { context: run.context, what: run.what });
        if (!e.reconnecting) {
          warn(e.message);
          return end(EXIT.FAILED);
        }
        if (reconnecting) return;
        reconnecting = true;
        warn(`reconnecting: ${e.message} The watch of ${run.what} goes on by itself once it answers.`);
      },
      recovered() {
        if (!reconnecting) return;
        reconnecting = false;
        warn(`reconnected: watching ${run.what} in context ${run.context} again`);
      },
    });
    void followed.start();
  });
}
