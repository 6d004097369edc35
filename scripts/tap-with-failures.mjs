// node --test reporter: the standard TAP output, plus the failing tests listed again as TAP comments just before
// the closing summary, so that a CI log cut to its last lines still says what failed and why.
import { tap } from 'node:test/reporters';

export default async function* tapWithFailures(source) {
  const failures = [];
  async function* withFailureList() {
    let listed = false;
    for await (const event of source) {
      if (event.type === 'test:fail' && !onlySubtestsFailed(event.data)) failures.push(describe(event.data));
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
  return data.details?.type === 'suite' || data.details?.error?.failureType === 'subtestsFailed';
}

function describe(data) {
  const error = data.details?.error;
  const cause = error?.cause ?? error;
  const text = String(cause?.message ?? cause ?? 'failed')
    .split('\n')
    .slice(0, 6)
    .join(' | ');
  return `${data.file ?? '?'} :: ${data.name} :: ${text.slice(0, 600)}`;
}

function failureLines(failures) {
  if (failures.length === 0) return [];
  return [`failing tests (${failures.length}):`, ...failures.map((line) => `  ✖ ${line}`)];
}
