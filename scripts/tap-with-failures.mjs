// node --test reporter: the standard TAP output, plus the failing tests listed again as TAP comments just before
// the closing summary, so that a CI log cut to its last lines still says what failed and why. A test file that
// fails as a whole (its process exited non-zero, or was killed, with no failing test to blame: an error thrown
// after its tests ended, a crash) is listed with its exit code or signal and the last lines it printed to stderr;
// a suite whose hook or body failed is listed too (node does not count it, but it is a failure).
import { tap } from 'node:test/reporters';

const STDERR_LINES_KEPT = 8;

export default async function* tapWithFailures(source) {
  const failures = [];
  /** The last lines each test file printed on stderr, and the errors node reported about it outside any test. */
  const printed = new Map();
  const remember = (file, line) => {
    if (!file || !line.trim()) return;
    const lines = printed.get(file) ?? [];
    lines.push(line.trim());
    if (lines.length > STDERR_LINES_KEPT) lines.shift();
    printed.set(file, lines);
  };
  async function* withFailureList() {
    let listed = false;
    let lastFile; // node reports an error raised after a file's tests ended without naming the file
    for await (const event of source) {
      if (event.data?.file) lastFile = event.data.file;
      if (event.type === 'test:stderr')
        for (const line of String(event.data.message).split('\n')) remember(event.data.file, line);
      if (
        event.type === 'test:diagnostic' &&
        /asynchronous activity after the test ended|uncaught/i.test(event.data.message)
      )
        remember(event.data.file ?? lastFile, event.data.message);
      if (event.type === 'test:fail' && !onlySubtestsFailed(event.data)) failures.push(describe(event.data, printed));
      if (
        !listed &&
        event.type === 'test:diagnostic' &&
        event.data.nesting === 0 &&
        /^tests \d+/.test(event.data.message)
      ) {
        listed = true;
        for (const message of failureLines(failures)) yield { type: 'test:diagnostic', data: { nesting: 0, message } };
      }
      yield event;
    }
  }
  yield* tap(withFailureList());
}

// A parent whose only failure is its subtests' adds nothing: the subtests are listed.
function onlySubtestsFailed(data) {
  return data.details?.error?.failureType === 'subtestsFailed';
}

function describe(data, printed) {
  const error = data.details?.error;
  const cause = error?.cause ?? error;
  let text = String(cause?.message ?? cause ?? 'failed')
    .split('\n')
    .slice(0, 6)
    .join(' | ');
  if (data.details?.type === 'suite' && error?.failureType) text = `${error.failureType}: ${text}`;
  const wholeFile = error && ('exitCode' in error || 'signal' in error);
  if (wholeFile) {
    text += error.signal ? ` (killed by ${error.signal})` : ` (exit code ${error.exitCode})`;
    const lines = printed.get(data.file) ?? [];
    text += lines.length > 0 ? ` | last lines printed: ${lines.join(' | ')}` : ' | nothing on stderr';
  }
  return `${data.file ?? '?'} :: ${data.name} :: ${text.slice(0, 1200)}`;
}

function failureLines(failures) {
  if (failures.length === 0) return [];
  return [`failing tests (${failures.length}):`, ...failures.map((line) => `  ✖ ${line}`)];
}
