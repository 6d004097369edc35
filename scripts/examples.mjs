// The main job: build, then check the bundled examples and compare with what each file promises.
// examples/good/* must be clean; every examples/bad/* file names its expected rule ids in a
// `# expect: WIN001 WIN002` line, and must produce exactly those (no more, no fewer).
import { readFileSync, readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const text = spawnSync(process.execPath, ['dist/cli.js', 'check', 'examples'], {
  encoding: 'utf8',
  env: { ...process.env, FORCE_COLOR: '' },
});
process.stdout.write(text.stdout);
const r = spawnSync(process.execPath, ['dist/cli.js', 'check', '--format', 'json', 'examples'], { encoding: 'utf8' });
if (r.status !== 0 && r.status !== 1) {
  console.error(r.stderr);
  process.exit(2);
}
const report = JSON.parse(r.stdout);
const byPath = new Map(report.files.map((f) => [f.path.split('\\').join('/'), f]));
const problems = [];
for (const dir of ['good', 'bad']) {
  for (const name of readdirSync(join('examples', dir)).sort()) {
    const path = `examples/${dir}/${name}`;
    const found = [...new Set((byPath.get(path)?.findings ?? []).map((f) => f.ruleId))].sort();
    if (dir === 'good') {
      if (found.length > 0) problems.push(`${path}: expected no findings, got ${found.join(' ')}`);
      continue;
    }
    const m = /^# expect: (.+)$/m.exec(readFileSync(path, 'utf8'));
    const expected = m ? [...new Set(m[1].trim().split(/\s+/))].sort() : [];
    if (expected.join(' ') !== found.join(' '))
      problems.push(
        `${path}: expected ${expected.join(' ') || '(an # expect: line)'}, got ${found.join(' ') || 'nothing'}`,
      );
  }
}
if (problems.length > 0) {
  console.error(`\nexamples do not match their expectations:\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log(`\nexamples: good/ is clean and every bad/ file reports exactly the rules it expects.`);
