// CHANGELOG.md follows Keep a Changelog 1.1.0: the title and the note naming the format and Semantic
// Versioning, an Unreleased section first, then released versions newest first as `[X.Y.Z] -
// YYYY-MM-DD` with a link reference each; within a version only the six kinds of change, each at
// most once, in the format's order, none empty, every entry a list item.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..', '..');
const KINDS = ['Added', 'Changed', 'Deprecated', 'Removed', 'Fixed', 'Security'];

interface Version {
  name: string;
  date?: string;
  line: number;
  sections: { kind: string; line: number; entries: number }[];
}

/** The versions of a changelog with their sections; throws on a line that belongs nowhere. */
function parseChangelog(text: string): { intro: string; versions: Version[]; links: Map<string, string> } {
  const lines = text.split('\n');
  const versions: Version[] = [];
  const links = new Map<string, string>();
  let intro = '';
  for (const [i, line] of lines.entries()) {
    const n = i + 1;
    const version = /^## \[([^\]]+)\](?: - (\d{4}-\d{2}-\d{2}))?$/.exec(line);
    const section = /^### (.+)$/.exec(line);
    const link = /^\[([^\]]+)\]: (https:\/\/\S+)$/.exec(line);
    if (version) versions.push({ name: version[1], date: version[2], line: n, sections: [] });
    else if (section) {
      const v = versions.at(-1);
      assert.ok(v, `line ${n}: "${line}" before any version`);
      v.sections.push({ kind: section[1], line: n, entries: 0 });
    } else if (link) links.set(link[1], link[2]);
    else if (versions.length === 0) intro += `${line}\n`;
    else if (line.trim() !== '') {
      const s = versions.at(-1)!.sections.at(-1);
      assert.ok(s, `line ${n}: text outside a section: "${line}"`);
      if (line.startsWith('- ')) s.entries++;
      else assert.match(line, /^ {2,}\S/, `line ${n}: neither an entry ("- ") nor its continuation: "${line}"`);
    }
  }
  return { intro, versions, links };
}

test('CHANGELOG.md follows Keep a Changelog', () => {
  const { intro, versions, links } = parseChangelog(readFileSync(resolve(ROOT, 'CHANGELOG.md'), 'utf8'));
  assert.match(intro, /^# Changelog\n/);
  assert.match(intro, /\[Keep a Changelog\]\(https:\/\/keepachangelog\.com\/en\/1\.1\.0\/\)/);
  assert.match(intro, /\[Semantic Versioning\]\(https:\/\/semver\.org\/\)/);
  assert.equal(versions[0]?.name, 'Unreleased', 'the Unreleased section comes first');
  const released = versions.slice(1);
  for (const v of released) {
    assert.match(v.name, /^\d+\.\d+\.\d+(-[\w.]+)?$/, `line ${v.line}: a version number`);
    assert.ok(v.date, `line ${v.line}: ${v.name} has its release date`);
    assert.ok(links.has(v.name), `${v.name} has a link reference at the end`);
  }
  const dates = released.map((v) => v.date!);
  assert.deepEqual(dates, [...dates].sort().reverse(), 'newest release first');
  for (const v of versions) {
    const kinds = v.sections.map((s) => s.kind);
    for (const s of v.sections) {
      assert.ok(KINDS.includes(s.kind), `line ${s.line}: "${s.kind}" is not one of ${KINDS.join(', ')}`);
      assert.ok(s.entries > 0, `line ${s.line}: ${v.name} → ${s.kind} is empty`);
    }
    assert.equal(new Set(kinds).size, kinds.length, `${v.name} has one section per kind: ${kinds.join(', ')}`);
    assert.deepEqual(
      kinds,
      KINDS.filter((k) => kinds.includes(k)),
      `${v.name}: sections in the format's order`,
    );
  }
});

test('the checks catch what Keep a Changelog does not allow', () => {
  const base = '# Changelog\n\nNotes.\n\n';
  const parsed = (body: string) => parseChangelog(base + body).versions;
  assert.deepEqual(
    parsed('## [Unreleased]\n\n### Added\n- a\n  more\n\n### Fixed\n- b\n').map((v) => v.sections),
    [
      [
        { kind: 'Added', line: 7, entries: 1 },
        { kind: 'Fixed', line: 11, entries: 1 },
      ],
    ],
  );
  assert.throws(() => parsed('## [Unreleased]\nloose text\n'), /text outside a section/);
  assert.throws(() => parsed('## [Unreleased]\n### Added\nnot a list item\n'), /neither an entry/);
  const twice = parsed('## [Unreleased]\n### Added\n- a\n### Added\n- b\n')[0].sections.map((s) => s.kind);
  assert.notEqual(new Set(twice).size, twice.length);
});
