// A whole-text change turned into the one range edit it amounts to (src/server/whole-text.ts): applied
// in place, it gives the same text and the same line table as the new text read afresh, CRLF or not.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { asRangeChange, minimalEdit } from '../../src/server/whole-text';

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

test('applied in place, the range change gives the new text and the line table of the new text read afresh', () => {
  const rnd = seeded(29);
  let compared = 0;
  for (let round = 0; round < 300; round++) {
    let doc = TextDocument.create('file:///x.yaml', 'yaml', 1, randomText(rnd, 1 + Math.floor(rnd() * 60)));
    for (let step = 0; step < 5; step++) {
      const after = edited(rnd, doc.getText());
      const change = asRangeChange(doc, after);
      doc = TextDocument.update(doc, [change], doc.version + 1);
      const fresh = TextDocument.create('file:///x.yaml', 'yaml', 1, after);
      assert.equal(doc.getText(), after);
      assert.equal(doc.lineCount, fresh.lineCount, JSON.stringify(after));
      for (let offset = 0; offset <= after.length; offset++)
        assert.deepEqual(doc.positionAt(offset), fresh.positionAt(offset), `${JSON.stringify(after)} @${offset}`);
      compared++;
    }
  }
  assert.equal(compared, 1500);
});
