// The README's screenshots and the end-to-end test screenshots they are copied from
// (scripts/screenshots.mjs; checked by test/unit/screenshots.test.ts).
/** test-results/<e2e name>.png → docs/screenshots/<README name>.png */
export const SCREENSHOTS = {
  '02-problems.png': 'diagnostics.png',
  '03-quick-fix.png': 'quick-fix.png',
  '04-cluster-view.png': 'cluster-tree.png',
  '07-join-progress.png': 'join.png',
  'pods-03-describe.png': 'describe-pod.png',
  'problems-02-live-yaml.png': 'workload-problems.png',
  'walkthrough-progress.png': 'walkthrough.png',
};
