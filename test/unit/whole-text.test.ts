// A whole-text change turned into the one range edit it amounts to (src/server/whole-text.ts), and the
// server's documents (src/server/synced-document.ts): after range and whole-text changes alike, the same
// text, line table and positions as vscode-languageserver-textdocument's document of the new text read
// afresh, CRLF or not; a whole-text change of a large file costs what a range change costs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { minimalEdit } from '../../src/server/whole-text';
import { SyncedDocument } from '../../src/server/synced-document';
import { deployment } from '../support/manifests';
import { cpuMillis } from '../support/cpu-time';

const ALPHABET = ['a', 'b', '\n', '\r\n', '\r', ' ', '-', 'é', '😀', '---\n'];

function randomText(rnd: () => number, length: number): string {
  let s = '';
  for (let i = 0; i < length; i++) s += ALPHABET[Math.floor(rnd() * ALPHABET.length)];
  return s;
}

function seeded(seed: number): () => number {
  return () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
}

/** The old text with a random stretch replaced, as one keystroke, a paste or a formatter would. */
function edited(rnd: () => number, before: string): string {
  const start = Math.floor(rnd() * (before.length + 1));
  const end = Math.min(before.length, start + Math.floor(rnd() * 6));
  return before.slice(0, start) + randomText(rnd, Math.floor(rnd() * 5)) + before.slice(end);
}

test('the edit keeps the common prefix and suffix and replaces only what differs', () => {
  assert.deepEqual(minimalEdit('replicas: 1\n', 'replicas: 2\n'), { start: 10, end: 11, text: '2' });
  assert.deepEqual(minimalEdit('abc', 'abc'), { start: 3, end: 3, text: '' });
  assert.deepEqual(minimalEdit('', 'x'), { start: 0, end: 0, text: 'x' });
  assert.deepEqual(minimalEdit('aXa', 'aa'), { start: 1, end: 2, text: '' });
  // Repeated characters: the prefix is taken first, the suffix from what is left.
  assert.deepEqual(minimalEdit('aaaa', 'aaaaa'), { start: 4, end: 4, text: 'a' });
  // A 1 MB text with one changed character in the middle is compared a block at a time.
  const big = 'x'.repeat(500_000) + 'A' + 'y'.repeat(500_000);
  assert.deepEqual(minimalEdit(big, big.replace('A', 'B')), { start: 500_000, end: 500_001, text: 'B' });
});

test('neither end of the edit splits a CRLF', () => {
  // "a\r" | "\nb" would leave an offset between \r and \n.
  assert.deepEqual(minimalEdit('a\r\nb', 'a\r\r\nb'), { start: 1, end: 1, text: '\r' });
  assert.deepEqual(minimalEdit('a\nb', 'a\r\nb'), { start: 1, end: 2, text: '\r\n' });
  assert.deepEqual(minimalEdit('a\r\nb', 'a\nb'), { start: 1, end: 3, text: '\n' });
});

/** The library's document of `text` read afresh, and `doc` compared with it everywhere. */
function assertSameAsFresh(doc: SyncedDocument, text: string): void {
  const fresh = TextDocument.create('file:///x.yaml', 'yaml', 1, text);
  const where = JSON.stringify(text);
  assert.equal(doc.getText(), text);
  assert.equal(doc.lineCount, fresh.lineCount, where);
  for (let offset = -1; offset <= text.length + 1; offset++)
    assert.deepEqual(doc.positionAt(offset), fresh.positionAt(offset), `${where} @${offset}`);
  for (let line = -1; line <= fresh.lineCount; line++) {
    assert.deepEqual(doc.getLineRange(line), fresh.getLineRange(line), `${where} line ${line}`);
    assert.equal(doc.getEOLCharacters(line), fresh.getEOLCharacters(line), `${where} line ${line}`);
    for (let character = -1; character < 8; character++)
      assert.equal(
        doc.offsetAt({ line, character }),
        fresh.offsetAt({ line, character }),
        `${where} ${line}:${character}`,
      );
  }
}

test('after whole-text and range changes alike, the text, lines and positions of the new text read afresh', () => {
  const rnd = seeded(29);
  let compared = 0;
  for (let round = 0; round < 300; round++) {
    const doc = new SyncedDocument('file:///x.yaml', 'yaml', 1, randomText(rnd, 1 + Math.floor(rnd() * 60)));
    // Some documents get their line table before the first change, some only after.
    if (round % 3 === 0) assert.ok(doc.lineCount >= 1);
    for (let step = 0; step < 6; step++) {
      const before = doc.getText();
      const after = edited(rnd, before);
      if (step % 2 === 0) doc.apply({ text: after });
      else {
        // The same change as a range edit, as a client that syncs incrementally sends it (its ends
        // sometimes reversed, which clients may send).
        const edit = minimalEdit(before, after);
        const fresh = TextDocument.create('file:///x.yaml', 'yaml', 1, before);
        const [start, end] = [fresh.positionAt(edit.start), fresh.positionAt(edit.end)];
        doc.apply({ range: rnd() < 0.2 ? { start: end, end: start } : { start, end }, text: edit.text });
      }
      assertSameAsFresh(doc, after);
      compared++;
    }
  }
  assert.equal(compared, 1800);
});

test('a change reports what it replaced in the text before it', () => {
  const doc = new SyncedDocument('file:///x.yaml', 'yaml', 1, 'a: 1\nb: 2\n');
  assert.deepEqual(doc.apply({ text: 'a: 1\nb: 23\n' }), { start: 9, end: 9, length: 10 });
  assert.deepEqual(
    doc.apply({ range: { start: { line: 0, character: 3 }, end: { line: 0, character: 4 } }, text: '7' }),
    {
      start: 3,
      end: 4,
      length: 11,
    },
  );
  assert.equal(doc.getText(), 'a: 7\nb: 23\n');
});

test('a whole-text change of a 1,000-document file keeps the client’s text: less CPU than rebuilding it from the old one', () => {
  const spec = `os: {name: windows}\ncontainers:\n  - name: app\n    image: mcr.microsoft.com/windows/nanoserver:ltsc2022\n`;
  const text = Array.from({ length: 1000 }, (_, i) => deployment(spec, `web-${i}`)).join('---\n');
  const offset = text.indexOf('name: web-500\n') + 'name: web-50'.length; // a digit in the middle
  const texts = Array.from({ length: 8 }, (_, i) => text.slice(0, offset) + String(i + 1) + text.slice(offset + 1));
  const ours = new SyncedDocument('file:///x.yaml', 'yaml', 1, texts[0]);
  let library = TextDocument.create('file:///x.yaml', 'yaml', 1, texts[0]);
  assert.ok(ours.lineCount > 10_000 && library.lineCount === ours.lineCount);
  const EDITS = 200;
  const run = (edit: (i: number) => void) => {
    for (let i = 0; i < 20; i++) edit(i); // warm up
    const start = cpuMillis();
    for (let i = 0; i < EDITS; i++) edit(i);
    return cpuMillis() - start;
  };
  const whole = run((i) => ours.apply({ text: texts[(i + 1) % 8] }));
  // What the server did before: the same comparison, then the library's update with the range edit
  // it amounts to, which builds the new text again from the old one (a copy of the whole file).
  const before = run((i) => {
    const edit = minimalEdit(library.getText(), texts[(i + 1) % 8]);
    const range = { start: library.positionAt(edit.start), end: library.positionAt(edit.end) };
    library = TextDocument.update(library, [{ range, text: edit.text }], i);
    library.getText().charCodeAt(offset);
  });
  assert.equal(ours.getText(), texts[EDITS % 8], 'the last edit (i = EDITS - 1) set texts[EDITS % 8]');
  assert.equal(library.getText(), texts[EDITS % 8]);
  assert.ok(
    whole * 1.25 < before,
    `whole-text: ${whole.toFixed(1)} ms of CPU for ${EDITS} edits, as before: ${before.toFixed(1)} ms`,
  );
});
