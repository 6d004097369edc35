// Settings as editors other than VS Code send them: none at all, initializationOptions only,
// workspace/configuration answered with null or with only some keys. The server works with none, and
// a key a later answer does not name keeps the value the client gave at start.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { TestClient, type ClientOptions } from '../support/lsp-client';

const ROOT = resolve(__dirname, '..', '..', '..');
const TEXT = readFileSync(resolve(ROOT, 'examples', 'bad', 'forbidden-security-context.yaml'), 'utf8');
const clients: TestClient[] = [];
after(async () => {
  await Promise.all(clients.map((c) => c.dispose()));
});

async function codes(options: ClientOptions, name: string): Promise<string[]> {
  const c = new TestClient(options);
  clients.push(c);
  await c.initialize();
  const uri = `file:///work/${name}.yaml`;
  await c.open(uri, TEXT);
  const { diagnostics } = await c.diagnostics(uri, 1);
  return diagnostics.map((d) => String(d.code));
}

const ALL = ['WIN001', 'WIN001', 'WIN002', 'WIN002', 'WIN002', 'WIN002'];

test('with no settings at all (no initializationOptions, no workspace/configuration) every rule runs', async () => {
  assert.deepEqual(await codes({ initializationOptions: undefined }, 'none'), ALL);
});

test('initializationOptions alone are read (a client without workspace/configuration)', async () => {
  assert.deepEqual(await codes({ initializationOptions: { rules: { WIN002: 'off' } } }, 'init'), ['WIN001', 'WIN001']);
});

test('workspace/configuration answered with null keeps initializationOptions', async () => {
  assert.deepEqual(
    await codes({ initializationOptions: { rules: { win001: 'off' } }, configuration: () => null }, 'null'),
    ['WIN002', 'WIN002', 'WIN002', 'WIN002'],
  );
});

/** The codes on open once the server has pulled `answer` (after `initialized`), the document opened after it. */
async function codesAfterPull(initializationOptions: unknown, answer: unknown, name: string): Promise<string[]> {
  let asked = 0;
  const c = new TestClient({ initializationOptions, configuration: () => (asked++, answer) });
  clients.push(c);
  await c.initialize();
  for (let i = 0; asked === 0 && i < 500; i++) await new Promise((r) => setTimeout(r, 10));
  assert.equal(asked, 1, 'the server asked for the kubeWindows section once');
  const uri = `file:///work/${name}.yaml`;
  await c.open(uri, TEXT);
  const { diagnostics } = await c.diagnostics(uri, 1);
  return diagnostics.map((d) => String(d.code));
}

test('workspace/configuration naming only some keys keeps the others from initializationOptions', async () => {
  assert.deepEqual(
    await codesAfterPull({ rules: { WIN002: 'off' } }, { debounceMs: 0, flavour: 'kubernetes' }, 'partial'),
    ['WIN001', 'WIN001'],
  );
});

test('workspace/configuration wins over initializationOptions for the keys it names', async () => {
  assert.deepEqual(await codesAfterPull({ rules: { WIN002: 'off' } }, { rules: { WIN001: 'off' } }, 'wins'), [
    'WIN002',
    'WIN002',
    'WIN002',
    'WIN002',
  ]);
});

test('the server registers for configuration changes only with a client that offers dynamic registration', async () => {
  const registered = async (dynamicRegistration: boolean) => {
    let asked = 0;
    const methods: string[] = [];
    const c = new TestClient({
      configuration: () => (asked++, null),
      capabilities: { workspace: { configuration: true, didChangeConfiguration: { dynamicRegistration } } },
    });
    clients.push(c);
    c.conn.onRequest('client/registerCapability', (params: { registrations: { method: string }[] }) => {
      methods.push(...params.registrations.map((r) => r.method));
      return null;
    });
    await c.initialize();
    // The registration, when there is one, comes before the configuration is pulled.
    for (let i = 0; asked === 0 && i < 500; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(asked, 1);
    return methods;
  };
  assert.deepEqual(await registered(true), ['workspace/didChangeConfiguration']);
  // eglot: workspace/configuration yes, dynamic registration no (it warned on every start).
  assert.deepEqual(await registered(false), []);
});
