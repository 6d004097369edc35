import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { resolve, join } from 'node:path';
import { TextDocument } from 'vscode-languageserver-textdocument';
import {
  CodeActionRequest,
  CompletionRequest,
  DidChangeConfigurationNotification,
  DocumentDiagnosticRequest,
  HoverRequest,
  type CodeAction,
  type Diagnostic,
  type TextEdit,
} from 'vscode-languageserver-protocol';
import { TestClient } from '../support/lsp-client';
import { deployment } from '../support/manifests';

const ROOT = resolve(__dirname, '..', '..', '..');
const clients: TestClient[] = [];
after(async () => {
  await Promise.all(clients.map((c) => c.dispose()));
});

async function client(options: ConstructorParameters<typeof TestClient>[0] = {}): Promise<TestClient> {
  const c = new TestClient(options);
  clients.push(c);
  await c.initialize();
  return c;
}

const WIN = `os: {name: windows}
nodeSelector: {kubernetes.io/os: windows}
tolerations: [{key: os, operator: Exists, effect: NoSchedule}]
`;
const badPod = (i: number) =>
  deployment(
    `${WIN}containers:
  - name: app
    image: mcr.microsoft.com/windows/nanoserver:ltsc2022
    securityContext:
      privileged: false
    resources: {limits: {cpu: 500m, memory: 512Mi}}
`,
    `web-${i}`,
  );
const goodPod = (i: number) =>
  deployment(
    `${WIN}containers:\n  - name: app\n    image: mcr.microsoft.com/windows/nanoserver:ltsc2022\n    resources: {limits: {cpu: 500m, memory: 512Mi}}\n`,
    `web-${i}`,
  );

async function waitFor<T>(get: () => T | undefined, ms = 5000): Promise<T | undefined> {
  const end = Date.now() + ms;
  for (;;) {
    const v = get();
    if (v !== undefined || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 20));
  }
}

function apply(text: string, edits: TextEdit[]): string {
  return TextDocument.applyEdits(TextDocument.create('file:///x.yaml', 'yaml', 1, text), edits);
}

function fullChange(text: string) {
  return [{ text }];
}

test('diagnostics on open carry rule id, documentation link, source, exact range', async () => {
  const c = await client();
  const uri = 'file:///work/bad.yaml';
  const text = badPod(0);
  await c.open(uri, text);
  const { diagnostics } = await c.diagnostics(uri, 1);
  assert.equal(diagnostics.length, 1);
  const d = diagnostics[0];
  assert.equal(d.code, 'WIN002');
  assert.equal(d.source, 'kube-windows');
  assert.match(d.codeDescription!.href, /docs\/rules\.md#win002$/);
  assert.equal(d.severity, 1);
  const lines = text.split('\n');
  assert.equal(lines[d.range.start.line].slice(d.range.start.character, d.range.end.character), 'privileged');
  const status = await waitFor(() => c.statuses.find((s) => s.uri === uri));
  assert.equal(status?.windowsWorkloads, 1);
  assert.equal(status?.findings, 1);
});

test('an edit in the middle of a 1000-document file re-checks only that document', async () => {
  const c = await client();
  const uri = 'file:///work/big.yaml';
  const docs = Array.from({ length: 1000 }, (_, i) => (i % 10 === 0 ? badPod(i) : goodPod(i)));
  const text = docs.join('---\n');
  await c.open(uri, text);
  const first = await c.diagnostics(uri, 1);
  assert.equal(first.diagnostics.length, 100);
  // Make document 505 bad: insert `privileged: false` under its image line.
  const lines = text.split('\n');
  const target = lines.findIndex((l) => l.includes('name: web-505'));
  const imageLine = lines.findIndex((l, i) => i > target && l.includes('image:'));
  const indent = /^ */.exec(lines[imageLine])![0];
  const v = await c.change(uri, [
    {
      range: { start: { line: imageLine + 1, character: 0 }, end: { line: imageLine + 1, character: 0 } },
      text: `${indent}securityContext: {privileged: true}\n`,
    },
  ]);
  const second = await c.diagnostics(uri, v);
  assert.equal(second.diagnostics.length, 101);
  const added = second.diagnostics.find((d) => d.range.start.line === imageLine + 1);
  assert.equal(added?.code, 'WIN002');
  // Diagnostics of documents after the edit moved down by one line.
  const lastBefore = first.diagnostics[first.diagnostics.length - 1];
  const lastAfter = second.diagnostics[second.diagnostics.length - 1];
  assert.equal(lastAfter.range.start.line, lastBefore.range.start.line + 1);
  await new Promise((r) => setTimeout(r, 50));
  assert.ok(
    c.logs.some((l) => /1 of 1000 documents re-evaluated/.test(l)),
    c.logs.slice(-3).join('\n'),
  );
});

test('after many incremental edits (several changes per message), diagnostics equal those of the same text opened fresh', async () => {
  const c = await client();
  const uri = 'file:///work/edited.yaml';
  let doc = TextDocument.create(
    uri,
    'yaml',
    1,
    Array.from({ length: 40 }, (_, i) => (i % 3 === 0 ? badPod(i) : goodPod(i))).join('---\n'),
  );
  await c.open(uri, doc.getText());
  await c.diagnostics(uri, 1);
  const inserts = ['---\n', 'x', '\n', '    securityContext: {privileged: true}\n', '# kube-windows-disable\n', ''];
  let seed = 7;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  let compared = 0;
  for (let step = 0; step < 25; step++) {
    const changes = [];
    for (let k = 0; k < 1 + (step % 3); k++) {
      const length = doc.getText().length;
      const start = Math.floor(rnd() * length);
      const end = Math.min(length, start + (rnd() < 0.5 ? 0 : Math.floor(rnd() * 40)));
      const change = {
        range: { start: doc.positionAt(start), end: doc.positionAt(end) },
        text: inserts[Math.floor(rnd() * inserts.length)],
      };
      changes.push(change);
      doc = TextDocument.update(doc, [change], doc.version + 1);
    }
    const v = await c.change(uri, changes);
    const edited = await c.diagnostics(uri, v);
    const freshUri = `file:///work/fresh-${step}.yaml`;
    await c.open(freshUri, doc.getText());
    const fresh = await c.diagnostics(freshUri, 1);
    assert.deepEqual(edited.diagnostics, fresh.diagnostics, `step ${step}`);
    compared += edited.diagnostics.length;
    await c.close(freshUri);
  }
  assert.ok(compared > 25 * 5, `${compared} diagnostics compared`);
});

test('diagnostics are published once on open and once per edit, each for its version', async () => {
  const c = await client();
  const uri = 'file:///work/once.yaml';
  const text = Array.from({ length: 200 }, (_, i) => (i % 10 === 0 ? badPod(i) : goodPod(i))).join('---\n');
  await c.open(uri, text);
  await c.diagnostics(uri, 1);
  const line = text.split('\n').findIndex((l) => l.includes('name: web-100'));
  for (let e = 0; e < 10; e++) {
    const v = await c.change(uri, [
      { range: { start: { line, character: 8 }, end: { line, character: 9 } }, text: String(e % 10) },
    ]);
    await c.diagnostics(uri, v);
  }
  await new Promise((r) => setTimeout(r, 200));
  const published = c.publishedFor(uri);
  assert.deepEqual(
    published.map((p) => p.version),
    Array.from({ length: 11 }, (_, i) => i + 1),
  );
  assert.ok(published.every((p) => p.diagnostics.length === 20));
});

test('every quick fix of every bad example removes its diagnostic', async () => {
  const c = await client();
  const dir = join(ROOT, 'examples', 'bad');
  let checked = 0;
  for (const name of readdirSync(dir).sort()) {
    const uri = `file:///work/examples/${name}`;
    let text = readFileSync(join(dir, name), 'utf8');
    await c.open(uri, text);
    let { diagnostics } = await c.diagnostics(uri, 1);
    let version = 1;
    for (let guard = 0; guard < 40; guard++) {
      const fixable: { d: Diagnostic; fix: CodeAction }[] = [];
      for (const d of diagnostics) {
        const actions = (await c.conn.sendRequest(CodeActionRequest.type, {
          textDocument: { uri },
          range: d.range,
          context: { diagnostics: [d] },
        })) as CodeAction[];
        const fix = actions.find((a) => a.isPreferred && a.edit);
        if (fix) fixable.push({ d, fix });
      }
      if (fixable.length === 0) break;
      const { d, fix } = fixable[0];
      const sameBefore = diagnostics.filter((x) => x.code === d.code).length;
      const brokenBefore = diagnostics.filter((x) => x.code === 'YAML001').length;
      text = apply(text, fix.edit!.changes![uri]);
      version = await c.change(uri, fullChange(text));
      ({ diagnostics } = await c.diagnostics(uri, version));
      assert.ok(
        diagnostics.filter((x) => x.code === 'YAML001').length <= brokenBefore,
        `fix "${fix.title}" broke the YAML of ${name}`,
      );
      assert.ok(
        diagnostics.filter((x) => x.code === d.code).length < sameBefore,
        `fix "${fix.title}" did not remove ${d.code} in ${name}`,
      );
      checked++;
    }
    await c.close(uri);
  }
  assert.ok(checked >= 10, `only ${checked} fixes exercised`);
});

test('fix-all applies every safe fix as one minimal edit', async () => {
  const c = await client();
  const uri = 'file:///work/fixall.yaml';
  const text = readFileSync(join(ROOT, 'examples', 'bad', 'forbidden-security-context.yaml'), 'utf8');
  await c.open(uri, text);
  const before = await c.diagnostics(uri, 1);
  assert.ok(before.diagnostics.length >= 5);
  const actions = (await c.conn.sendRequest(CodeActionRequest.type, {
    textDocument: { uri },
    range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
    context: { diagnostics: [], only: ['source.fixAll'] },
  })) as CodeAction[];
  assert.equal(actions.length, 1);
  assert.equal(actions[0].kind, 'source.fixAll.kube-windows');
  const edits = actions[0].edit!.changes![uri];
  assert.equal(edits.length, 1);
  assert.ok(edits[0].range.start.line > 3, 'the edit leaves the unchanged head of the file alone');
  const fixed = apply(text, edits);
  assert.ok(fixed.startsWith('# expect: WIN001 WIN002\n'), 'comments kept');
  const v = await c.change(uri, fullChange(fixed));
  assert.deepEqual((await c.diagnostics(uri, v)).diagnostics, []);
});

test('"Disable RULE for this line" inserts a suppression comment that silences it', async () => {
  const c = await client();
  const uri = 'file:///work/suppress.yaml';
  const text = badPod(1);
  await c.open(uri, text);
  const [d] = (await c.diagnostics(uri, 1)).diagnostics;
  const actions = (await c.conn.sendRequest(CodeActionRequest.type, {
    textDocument: { uri },
    range: d.range,
    context: { diagnostics: [d] },
  })) as CodeAction[];
  const disable = actions.find((a) => a.title === 'Disable WIN002 for this line');
  assert.ok(disable);
  const next = apply(text, disable.edit!.changes![uri]);
  assert.match(next, /\n {12}# kube-windows-disable-next-line WIN002\n {12}privileged: false/);
  const v = await c.change(uri, fullChange(next));
  assert.deepEqual((await c.diagnostics(uri, v)).diagnostics, []);
});

test('hover explains a finding and a Windows field', async () => {
  const c = await client();
  const uri = 'file:///work/hover.yaml';
  const text = badPod(2);
  await c.open(uri, text);
  const [d] = (await c.diagnostics(uri, 1)).diagnostics;
  const h = await c.conn.sendRequest(HoverRequest.type, { textDocument: { uri }, position: d.range.start });
  const value = (h!.contents as { value: string }).value;
  // The editor shows the diagnostic itself at this place: the hover adds the rule's reason and its
  // documentation, never the diagnostic's message or severity again.
  assert.match(value, /\*\*WIN002\*\*: Container securityContext field the API server forbids/);
  assert.match(value, /docs\/rules\.md#win002/);
  const message = typeof d.message === 'string' ? d.message : d.message.value;
  assert.ok(!value.includes(message), `the hover repeats the diagnostic: ${value}`);
  assert.ok(!value.includes(message.slice(0, 40)), `the hover repeats the diagnostic's first words: ${value}`);
  assert.doesNotMatch(value, /\(error\)/);
  assert.equal(value.match(/WIN002/gi)?.length, 2, 'one note per rule: its id and its documentation link');
  const lines = text.split('\n');
  const osLine = lines.findIndex((l) => l.includes('os: {name: windows}'));
  const h2 = await c.conn.sendRequest(HoverRequest.type, {
    textDocument: { uri },
    position: { line: osLine, character: lines[osLine].indexOf('name') + 1 },
  });
  assert.match((h2!.contents as { value: string }).value, /windows/i);
});

test('completion offers Windows values', async () => {
  const c = await client();
  const uri = 'file:///work/complete.yaml';
  const text =
    'apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  nodeSelector:\n    kubernetes.io/os: \n  containers: []\n';
  await c.open(uri, text);
  await c.diagnostics(uri, 1);
  const items = (await c.conn.sendRequest(CompletionRequest.type, {
    textDocument: { uri },
    position: { line: 5, character: 22 },
  })) as { label: string }[];
  assert.ok(
    items.some((i) => i.label === 'windows'),
    JSON.stringify(items.map((i) => i.label)),
  );
});

test('configuration changes apply without restart (per-rule severity off)', async () => {
  const c = await client();
  const uri = 'file:///work/config.yaml';
  await c.open(uri, badPod(3));
  assert.equal((await c.diagnostics(uri, 1)).diagnostics.length, 1);
  const next = c.diagnostics(uri);
  await c.conn.sendNotification(DidChangeConfigurationNotification.type, {
    settings: { kubeWindows: { debounceMs: 0, rules: { WIN002: 'off' } } },
  });
  assert.deepEqual((await next).diagnostics, []);
});

test('settings come from workspace/configuration when the client supports it', async () => {
  const c = await client({ configuration: () => ({ debounceMs: 0, rules: { WIN002: 'info' } }) });
  const uri = 'file:///work/pulled-config.yaml';
  await new Promise((r) => setTimeout(r, 100));
  await c.open(uri, badPod(4));
  const { diagnostics } = await c.diagnostics(uri, 1);
  assert.equal(diagnostics[0].severity, 3);
});

test('pull diagnostics when the client supports them', async () => {
  const c = await client({ capabilities: { textDocument: { diagnostic: { dynamicRegistration: false } } } });
  const uri = 'file:///work/pull.yaml';
  await c.open(uri, badPod(5));
  const report = (await c.conn.sendRequest(DocumentDiagnosticRequest.type, { textDocument: { uri } })) as {
    kind: string;
    items: Diagnostic[];
  };
  assert.equal(report.kind, 'full');
  assert.equal(report.items[0].code, 'WIN002');
});

test('non-Kubernetes YAML and excluded files get no diagnostics', async () => {
  const c = await client();
  const uri = 'file:///work/ci.yaml';
  await c.open(uri, 'jobs:\n  build:\n    runs-on: ubuntu-latest\n    securityContext: {privileged: true}\n');
  assert.deepEqual((await c.diagnostics(uri, 1)).diagnostics, []);
  await new Promise((r) => setTimeout(r, 50));
  assert.equal((await waitFor(() => c.statuses.find((s) => s.uri === uri)))?.skipped, 'not a Kubernetes file');
  const vendored = 'file:///work/node_modules/chart/pod.yaml';
  await c.open(vendored, badPod(6));
  assert.deepEqual((await c.diagnostics(vendored, 1)).diagnostics, []);
});

test('a 10 MB document is checked, and the server stays responsive', async () => {
  const c = await client();
  const uri = 'file:///work/ten-mb.yaml';
  const docs: string[] = [];
  let size = 0;
  for (let i = 0; size < 10 * 1024 * 1024; i++) {
    const d = i % 10 === 0 ? badPod(i) : goodPod(i);
    docs.push(d);
    size += d.length + 4;
  }
  const t0 = Date.now();
  await c.open(uri, docs.join('---\n'));
  const { diagnostics } = await c.diagnostics(uri, 1, 30_000);
  assert.equal(diagnostics.length, Math.ceil(docs.length / 10));
  assert.ok(Date.now() - t0 < 20_000);
  const h = await c.conn.sendRequest(HoverRequest.type, {
    textDocument: { uri },
    position: diagnostics[0].range.start,
  });
  assert.ok(h);
});

test('a document closed while it is being validated ends with empty diagnostics', async () => {
  const c = await client();
  const uri = 'file:///work/closing.yaml';
  await c.open(uri, Array.from({ length: 3000 }, (_, i) => badPod(i)).join('---\n'));
  await c.close(uri);
  // The last word for this document is an empty list, whatever was in flight: wait (under load the
  // clearing publish can take a while) until one came and nothing followed it for a second.
  const mine = () =>
    (c as unknown as { published: { uri: string; diagnostics: unknown[] }[] }).published.filter((p) => p.uri === uri);
  const end = Date.now() + 30_000;
  let seen = -1;
  let quietSince = Date.now();
  for (;;) {
    const n = mine().length;
    if (n !== seen) [seen, quietSince] = [n, Date.now()];
    if (n > 0 && Date.now() - quietSince >= 1000) break;
    assert.ok(Date.now() < end, `no settled publication for ${uri} within 30 s (${n} so far)`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const all = mine();
  assert.deepEqual(all[all.length - 1]?.diagnostics, []);
  assert.ok(c.alive());
});

test('malformed and out-of-order messages do not take the server down', async () => {
  const c = await client();
  // A change and a code action for a document never opened.
  await c.change('file:///work/never-opened.yaml', [{ text: 'kind: Pod' }]);
  const none = await c.conn.sendRequest(CodeActionRequest.type, {
    textDocument: { uri: 'file:///work/never-opened.yaml' },
    range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
    context: { diagnostics: [] },
  });
  assert.deepEqual(none ?? [], []);
  // Garbage JSON with a valid header, then a body that is not JSON-RPC at all.
  const garbage = '{"jsonrpc": "2.0", "method": ';
  c.proc.stdin!.write(`Content-Length: ${Buffer.byteLength(garbage)}\r\n\r\n${garbage}`);
  const notRpc = '[1,2,3]';
  c.proc.stdin!.write(`Content-Length: ${notRpc.length}\r\n\r\n${notRpc}`);
  // A request with impossible positions.
  await c.open('file:///work/after.yaml', badPod(7));
  await c.diagnostics('file:///work/after.yaml', 1);
  const h = await c.conn.sendRequest(HoverRequest.type, {
    textDocument: { uri: 'file:///work/after.yaml' },
    position: { line: 9999, character: 9999 },
  });
  assert.equal(h, null);
  assert.ok(c.alive());
});

test('a cluster snapshot makes image rules name the cluster and its node builds', async () => {
  const c = await client();
  const uri = 'file:///work/snapshot.yaml';
  const text = deployment(
    `${WIN}containers:\n  - name: app\n    image: mcr.microsoft.com/windows/servercore:ltsc2022\n`,
  );
  await c.open(uri, text);
  assert.deepEqual(
    (await c.diagnostics(uri, 1)).diagnostics.filter((d) => d.code === 'WIN080'),
    [],
  );
  const next = c.diagnostics(uri);
  await c.conn.sendNotification('kubeWindows/clusterSnapshot', {
    name: 'prod',
    flavour: 'kubernetes',
    windowsNodes: [
      { name: 'win-1', build: '10.0.17763', taints: [{ key: 'os', value: 'windows', effect: 'NoSchedule' }] },
    ],
    runtimeClasses: [],
  });
  const d = (await next).diagnostics.find((x) => x.code === 'WIN080');
  assert.ok(d, 'WIN080 once the cluster is known');
  assert.match(String(d.message), /prod/);
  assert.match(String(d.message), /10\.0\.17763/);
  // What only the cluster's facts say is marked as such, in the Problems panel and the hover alike.
  assert.match(String(d.message), / — from cluster prod$/);
  // And back to generic rules without a snapshot.
  const after = c.diagnostics(uri);
  await c.conn.sendNotification('kubeWindows/clusterSnapshot', null);
  assert.deepEqual(
    (await after).diagnostics.filter((x) => x.code === 'WIN080'),
    [],
  );
});

test('WIN063 in the editor: a claim in the file whose CSI driver no Windows node registered, once the snapshot carries storage facts', async () => {
  const c = await client();
  const uri = 'file:///work/storage.yaml';
  const claim =
    'apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: data, namespace: apps}\nspec: {storageClassName: smb, accessModes: [ReadWriteMany], resources: {requests: {storage: 1Gi}}}\n---\n';
  const text =
    claim +
    deployment(
      `${WIN}containers:\n  - name: app\n    image: mcr.microsoft.com/windows/servercore:ltsc2022\nvolumes:\n  - name: data\n    persistentVolumeClaim: {claimName: data}\n`,
    ).replace('metadata:\n  name:', 'metadata:\n  namespace: apps\n  name:');
  await c.open(uri, text);
  assert.deepEqual(
    (await c.diagnostics(uri, 1)).diagnostics.filter((d) => d.code === 'WIN063'),
    [],
    'no storage facts: no finding',
  );
  const next = c.diagnostics(uri);
  await c.conn.sendNotification('kubeWindows/clusterSnapshot', {
    name: 'prod',
    flavour: 'kubernetes',
    windowsNodes: [{ name: 'win-1', build: '10.0.20348', taints: [] }],
    runtimeClasses: [],
    storage: {
      storageClasses: [{ name: 'smb', provisioner: 'smb.csi.k8s.io', isDefault: false }],
      csiDrivers: ['smb.csi.k8s.io'],
      windowsNodes: [{ name: 'win-1', build: '10.0.20348', drivers: [] }],
    },
  });
  const d = (await next).diagnostics.find((x) => x.code === 'WIN063');
  assert.ok(d, 'WIN063 once the snapshot carries storage facts');
  assert.match(String(d.message), /smb\.csi\.k8s\.io/);
});

test('with the default debounce, the first diagnostics after open are not delayed by it', async () => {
  const c = await client({ initializationOptions: { debounceMs: 1000 } });
  const uri = 'file:///work/debounced.yaml';
  const t0 = Date.now();
  await c.open(uri, badPod(8));
  await c.diagnostics(uri, 1);
  assert.ok(Date.now() - t0 < 800, `open took ${Date.now() - t0} ms with a 1000 ms debounce`);
  // An edit waits for the debounce.
  const t1 = Date.now();
  const v = await c.change(uri, [{ text: goodPod(8) }]);
  assert.deepEqual((await c.diagnostics(uri, v)).diagnostics, []);
  assert.ok(Date.now() - t1 >= 900, 'edits are debounced');
});
