// kubeWindows.exactApi in the language server: with the setting on and the validator of the
// release installed in the user's data folder, a workload's diagnostics gain the API server's own
// refusals (API001) in its words, once the module has loaded; with it off, the rules alone.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { TestClient } from '../support/lsp-client';

const ROOT = resolve(__dirname, '..', '..', '..');
let data: string;
const clients: TestClient[] = [];

before(async () => {
  const script = (await import(pathToFileURL(join(ROOT, 'scripts', 'validator.mjs')).href)) as {
    ensureValidator(o: { release: string }): Promise<{ compressed: string }>;
  };
  const v = await script.ensureValidator({ release: '1.35' });
  data = mkdtempSync(join(tmpdir(), 'kw-lsp-exact-'));
  mkdirSync(join(data, 'kube-windows', 'validator'), { recursive: true });
  copyFileSync(v.compressed, join(data, 'kube-windows', 'validator', basename(v.compressed)));
});
after(async () => {
  await Promise.all(clients.map((c) => c.dispose()));
  rmSync(data, { recursive: true, force: true });
});

const POD = `apiVersion: v1
kind: Pod
metadata:
  name: Web_1
spec:
  os: {name: windows}
  nodeSelector: {kubernetes.io/os: windows}
  containers:
  - name: web
    image: mcr.microsoft.com/windows/nanoserver:ltsc2022
    resources: {limits: {cpu: 500m, memory: 512Mi}}
`;

async function diagnosticsWith(exactApi: boolean, uri: string) {
  const c = new TestClient({
    initializationOptions: { kubernetesVersion: '1.35', exactApi },
    env: { XDG_DATA_HOME: data, KUBE_WINDOWS_VALIDATOR: '' },
  });
  clients.push(c);
  await c.initialize();
  await c.open(uri, POD);
  // The module loads in the background: the diagnostics are published again when it is ready.
  for (let i = 0; i < 600; i++) {
    const last = c.publishedFor(uri).at(-1);
    if (last && (!exactApi || last.diagnostics.some((d) => d.code === 'API001'))) return last.diagnostics;
    await new Promise((r) => setTimeout(r, 100));
  }
  return c.publishedFor(uri).at(-1)?.diagnostics;
}

test("with kubeWindows.exactApi the API server's own refusal shows in its words; without it, the rules alone", async () => {
  const on = await diagnosticsWith(true, 'file:///work/on.yaml');
  assert.ok(on, 'diagnostics were published');
  const api = on.filter((d) => d.code === 'API001');
  assert.equal(api.length, 1, JSON.stringify(on));
  assert.match(
    String(api[0].message),
    /^metadata\.name: Invalid value: "Web_1": a lowercase RFC 1123 subdomain must consist of/,
  );
  assert.equal(api[0].range.start.line, 3);
  const off = await diagnosticsWith(false, 'file:///work/off.yaml');
  assert.ok(off, 'diagnostics were published');
  assert.equal(off.filter((d) => String(d.code).startsWith('API')).length, 0);
});
