// Whole-text sync: clients that send the whole document on every change (ALE, eglot, small clients)
// get the same diagnostics as those that send range edits, for the same work: the server turns the
// new text into the range edit it amounts to, so only the touched YAML document is checked again.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { TestClient } from '../support/lsp-client';
import { deployment } from '../support/manifests';

const clients: TestClient[] = [];
after(async () => {
  await Promise.all(clients.map((c) => c.dispose()));
});

async function client(): Promise<TestClient> {
  const c = new TestClient();
  clients.push(c);
  await c.initialize();
  return c;
}

const WIN = `os: {name: windows}
nodeSelector: {kubernetes.io/os: windows}
tolerations: [{key: os, operator: Exists, effect: NoSchedule}]
containers:
  - name: app
    image: mcr.microsoft.com/windows/nanoserver:ltsc2022
    resources: {limits: {cpu: 500m, memory: 512Mi}}
`;
const pod = (i: number) =>
  deployment(i % 10 === 0 ? `${WIN}    securityContext: {privileged: true}\n` : WIN, `web-${i}`);

/** The log line of the analysis of `uri` at `version`, once the server has written it. */
async function analysisLog(c: TestClient, uri: string, version: number): Promise<string> {
  for (let i = 0; i < 250; i++) {
    const line = c.logs.find((l) => l.startsWith(`checked ${uri} v${version}:`));
    if (line) return line;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`no analysis logged for ${uri} v${version}: ${c.logs.slice(-3).join(' | ')}`);
}

test('a whole-text edit of a 1000-document file gives the range edit’s diagnostics and re-checks one document', async () => {
  const c = await client();
  const text = Array.from({ length: 1000 }, (_, i) => pod(i)).join('---\n');
  const lines = text.split('\n');
  const target = lines.findIndex((l) => l.includes('name: web-505'));
  const imageLine = lines.findIndex((l, i) => i > target && l.includes('image:'));
  const inserted = '    securityContext: {privileged: true}\n';
  const insertAt = lines.slice(0, imageLine + 1).join('\n').length + 1;
  const edited = text.slice(0, insertAt) + inserted + text.slice(insertAt);

  const ranged = 'file:///work/ranged.yaml';
  const whole = 'file:///work/whole.yaml';
  await c.open(ranged, text);
  await c.open(whole, text);
  assert.equal((await c.diagnostics(ranged, 1)).diagnostics.length, 100);
  assert.equal((await c.diagnostics(whole, 1)).diagnostics.length, 100);
  const position = { line: imageLine + 1, character: 0 };
  const vr = await c.change(ranged, [{ range: { start: position, end: position }, text: inserted }]);
  const vw = await c.change(whole, [{ text: edited }]);
  const byRange = await c.diagnostics(ranged, vr);
  const byWholeText = await c.diagnostics(whole, vw);
  assert.equal(byRange.diagnostics.length, 101);
  assert.deepEqual(byWholeText.diagnostics, byRange.diagnostics);
  assert.match(await analysisLog(c, whole, vw), /: 1 of 1000 documents re-evaluated/);

  // Back again, whole text: the finding goes, still one document re-checked.
  const vw2 = await c.change(whole, [{ text }]);
  assert.equal((await c.diagnostics(whole, vw2)).diagnostics.length, 100);
  assert.match(await analysisLog(c, whole, vw2), /: 1 of 1000 documents re-evaluated/);
});

test('a run of whole-text edits (documents split, joined, suppressed, CRLF) ends where a fresh open does', async () => {
  const c = await client();
  const uri = 'file:///work/typed.yaml';
  let text = Array.from({ length: 30 }, (_, i) => pod(i)).join('---\n');
  await c.open(uri, text);
  await c.diagnostics(uri, 1);
  const inserts = [
    '---\n',
    'x',
    '\n',
    '\r\n',
    '    securityContext: {privileged: true}\n',
    '# kube-windows-disable\n',
    '',
  ];
  let seed = 11;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  let compared = 0;
  for (let step = 0; step < 20; step++) {
    const start = Math.floor(rnd() * text.length);
    const end = Math.min(text.length, start + (rnd() < 0.5 ? 0 : Math.floor(rnd() * 40)));
    text = text.slice(0, start) + inserts[Math.floor(rnd() * inserts.length)] + text.slice(end);
    const v = await c.change(uri, [{ text }]);
    const edited = await c.diagnostics(uri, v);
    const freshUri = `file:///work/fresh-${step}.yaml`;
    await c.open(freshUri, text);
    const fresh = await c.diagnostics(freshUri, 1);
    assert.deepEqual(edited.diagnostics, fresh.diagnostics, `step ${step}`);
    compared += edited.diagnostics.length;
    await c.close(freshUri);
  }
  assert.ok(compared > 20, `${compared} diagnostics compared`);
});
