// OCP005 in the editor: the language server reports it once the cluster snapshot says the cluster has a
// proxy (what the extension sends from the cluster's facts), offers the env entries as a code action,
// and reports nothing again when the snapshot has no proxy.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { TestClient } from '../support/lsp-client';
import { deployment } from '../support/manifests';

const clients: TestClient[] = [];
after(async () => {
  await Promise.all(clients.map((c) => c.dispose()));
});

const snapshot = (proxy?: Record<string, string>) => ({
  name: 'ocp',
  flavour: 'openshift',
  windowsNodes: [],
  runtimeClasses: [],
  openshift: { version: '4.16.3', ...(proxy ? { proxy } : {}) },
});

test('OCP005 in the editor: once the snapshot carries the cluster proxy, with the env entries as a code action; gone without it', async () => {
  const c = new TestClient();
  clients.push(c);
  await c.initialize();
  const uri = 'file:///work/proxy.yaml';
  const text = deployment(
    'os: {name: windows}\nnodeSelector: {kubernetes.io/os: windows}\ncontainers:\n  - name: app\n    image: mcr.microsoft.com/windows/servercore:ltsc2022\n    command: [powershell, -c, "iwr https://aka.ms/x -OutFile C:/x"]\n',
  );
  await c.open(uri, text);
  assert.deepEqual(
    (await c.diagnostics(uri, 1)).diagnostics.filter((d) => d.code === 'OCP005'),
    [],
    'no cluster facts: no finding',
  );
  const next = c.diagnostics(uri);
  await c.conn.sendNotification(
    'kubeWindows/clusterSnapshot',
    snapshot({
      httpProxy: 'http://proxy.corp:3128',
      httpsProxy: 'http://proxy.corp:3128',
      noProxy: '.svc,.cluster.local',
    }),
  );
  const d = (await next).diagnostics.find((x) => x.code === 'OCP005');
  assert.ok(d, 'OCP005 once the snapshot has a proxy');
  assert.equal(d.severity, 3, 'information');
  assert.match(String(d.message), /through the proxy http:\/\/proxy\.corp:3128/);
  const actions = (await c.conn.sendRequest('textDocument/codeAction', {
    textDocument: { uri },
    range: d.range,
    context: { diagnostics: [d] },
  })) as { title: string; edit?: { changes?: Record<string, { newText: string }[]> } }[];
  const fix = actions.find((a) => a.title.startsWith('Add HTTP_PROXY, HTTPS_PROXY and NO_PROXY'));
  assert.ok(fix, `actions: ${actions.map((a) => a.title).join(' | ')}`);
  assert.match(JSON.stringify(fix.edit), /NO_PROXY[\s\S]*\.svc,\.cluster\.local/);
  const gone = c.diagnostics(uri);
  await c.conn.sendNotification('kubeWindows/clusterSnapshot', snapshot());
  assert.deepEqual(
    (await gone).diagnostics.filter((x) => x.code === 'OCP005'),
    [],
    'a cluster without a proxy: no finding',
  );
});
