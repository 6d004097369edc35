// VS Code's conventions for what package.json contributes, checked so that every new command, menu
// entry and setting follows them: commands in the "kube-windows" category, menus that only show
// where they work (when-clauses naming our views and tree items that exist), commands that need a
// tree item kept out of the Command Palette, inline actions with icons, settings with a type, a
// description, a scope and described enum values; and the extension's command tables (one per
// *-commands.ts file) against what package.json contributes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createFakeVscode, hookVscodeModule } from '../support/fake-vscode';
import { EXTENSION_COMMANDS } from '../support/commands';

const ROOT = resolve(__dirname, '..', '..', '..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const contributes = pkg.contributes;

interface Command {
  command: string;
  title: string;
  category?: string;
  icon?: string;
  enablement?: string;
}
interface MenuEntry {
  command: string;
  when?: string;
  group?: string;
}
const commands: Command[] = contributes.commands;
const menus: Record<string, MenuEntry[]> = contributes.menus;
const viewIds: string[] = Object.values(contributes.views as Record<string, { id: string }[]>).flatMap((views) =>
  views.map((v) => v.id),
);
/** Views of other extensions we add actions to: their tree items are theirs, not in our ContextValue union. */
const FOREIGN_VIEWS = ['extension.vsKubernetesExplorer'];

/** The contextValues the cluster tree hands out (the ContextValue union in src/views/cluster-item.ts), plus any a view declares the same way. */
function contextValues(): string[] {
  const values = new Set<string>();
  // The Clusters view's items, and the Windows workload problems view's.
  for (const [file, type] of [
    ['cluster-item.ts', 'ContextValue'],
    ['problem-item.ts', 'ProblemContextValue'],
  ]) {
    const text = readFileSync(join(ROOT, 'src', 'views', file), 'utf8');
    const union = new RegExp(`export type ${type} =([^;]+);`).exec(text);
    assert.ok(union, `${type} union not found in src/views/${file}`);
    for (const m of union[1].matchAll(/'([^']+)'/g)) values.add(m[1]);
  }
  return [...values];
}

/** The viewItem conditions of a when-clause: `viewItem == x` values and `viewItem =~ /re/` patterns. */
function viewItemConditions(when: string): (string | RegExp)[] {
  const out: (string | RegExp)[] = [];
  for (const m of when.matchAll(/viewItem\s*==\s*([\w.-]+)/g)) out.push(m[1]);
  for (const m of when.matchAll(/viewItem\s*=~\s*\/(.+?)\/(?=\s|$|\))/g)) out.push(new RegExp(m[1]));
  return out;
}

test('every command is in the "kube-windows" category, with a title that does not repeat it', () => {
  assert.ok(commands.length > 0);
  for (const c of commands) {
    assert.equal(c.category, 'kube-windows', `${c.command}: category`);
    assert.ok(c.title.trim().length > 0, `${c.command}: empty title`);
    assert.doesNotMatch(c.title, /^kube-windows/i, `${c.command}: the category is already shown before the title`);
    assert.doesNotMatch(c.title, /\.$/, `${c.command}: a title is not a sentence`);
    assert.match(c.command, /^kubeWindows\.[a-z][A-Za-z]+$/, `${c.command}: command ids are kubeWindows.camelCase`);
  }
});

test('menu entries only name contributed commands, and view menus say which view and which tree items', () => {
  const known = new Set(commands.map((c) => c.command));
  const items = contextValues();
  for (const [menu, entries] of Object.entries(menus)) {
    for (const e of entries) {
      assert.ok(known.has(e.command), `${menu}: ${e.command} is not a contributed command`);
      if (!menu.startsWith('view/')) continue;
      assert.ok(e.when, `${menu}: ${e.command} has no when-clause, so it would show in every view`);
      const views = [...e.when.matchAll(/view\s*==\s*([\w.-]+)/g)].map((m) => m[1]);
      assert.ok(views.length > 0, `${menu}: ${e.command} does not name a view (${e.when})`);
      for (const v of views)
        assert.ok(
          viewIds.includes(v) || FOREIGN_VIEWS.includes(v),
          `${menu}: ${e.command} names the unknown view ${v}`,
        );
      if (menu !== 'view/item/context' || views.some((v) => FOREIGN_VIEWS.includes(v))) continue;
      for (const cond of viewItemConditions(e.when)) {
        const matches = items.filter((i) => (typeof cond === 'string' ? i === cond : cond.test(i)));
        assert.ok(
          matches.length > 0,
          `${menu}: ${e.command} shows for viewItem ${cond}, which no tree item has (${items.join(', ')})`,
        );
      }
    }
  }
});

test('commands that act on a tree item are hidden from the Command Palette', () => {
  const palette = new Map((menus.commandPalette ?? []).map((e) => [e.command, e.when]));
  const onItems = new Set((menus['view/item/context'] ?? []).map((e) => e.command));
  const onTitles = new Set((menus['view/title'] ?? []).map((e) => e.command));
  // These ask for what they need (a context, a file) when run from the palette.
  const standalone = new Set([
    'kubeWindows.joinNode',
    'kubeWindows.showJoinPlan',
    'kubeWindows.previewMirrors',
    'kubeWindows.applyMirrors',
    'kubeWindows.createMachineSet',
    'kubeWindows.enforceWindowsRules',
    'kubeWindows.showLog',
  ]);
  for (const command of onItems) {
    if (standalone.has(command) || onTitles.has(command)) continue;
    assert.ok(
      palette.has(command),
      `${command} needs a tree item but shows in the Command Palette (add a commandPalette entry with "when": "false")`,
    );
  }
  for (const [command, when] of palette)
    assert.ok(when && when.trim(), `${command}: a commandPalette entry without a when-clause does nothing`);
});

test('inline (hover) actions have an icon, or VS Code shows their whole title in the row', () => {
  const byId = new Map(commands.map((c) => [c.command, c]));
  for (const menu of ['view/item/context', 'view/title']) {
    for (const e of menus[menu] ?? []) {
      if (menu === 'view/title' ? e.group !== 'navigation' : !e.group?.startsWith('inline')) continue;
      assert.match(
        byId.get(e.command)?.icon ?? '',
        /^\$\([\w~-]+\)$/,
        `${menu}: ${e.command} is inline without a $(codicon) icon`,
      );
    }
  }
});

/**
 * Commands that mean the same thing may share an icon (refresh a view, delete something, open logs …); any other
 * two commands must not, or the row's icons cannot be told apart (Retry, Reboot, Restart service and Restart
 * workload once all wore debug-restart or refresh).
 */
const SAME_MEANING: string[][] = [
  ['kubeWindows.refresh', 'kubeWindows.refreshProblems'],
  ['kubeWindows.removeNode', 'kubeWindows.deletePod', 'kubeWindows.deleteMachine'],
  ['kubeWindows.showJoinPlan', 'kubeWindows.previewMirrors'],
  ['kubeWindows.applyMirrors', 'kubeWindows.applyMachineSet'],
  ['kubeWindows.showLog', 'kubeWindows.podLogs', 'kubeWindows.nodeLogs'],
  ['kubeWindows.openYaml', 'kubeWindows.openLiveObject'],
];

test('no two commands of different meanings share an icon', () => {
  const meaning = (id: string) => SAME_MEANING.findIndex((group) => group.includes(id));
  const byIcon = new Map<string, string[]>();
  for (const c of commands) if (c.icon) byIcon.set(c.icon, [...(byIcon.get(c.icon) ?? []), c.command]);
  for (const [icon, ids] of byIcon) {
    if (ids.length < 2) continue;
    const groups = new Set(ids.map(meaning));
    assert.ok(
      groups.size === 1 && !groups.has(-1),
      `${icon} is worn by ${ids.join(', ')}: give each meaning its own icon (or list them in SAME_MEANING)`,
    );
  }
  // The four that used to collide, each distinct from Refresh.
  const icon = (id: string) => commands.find((c) => c.command === id)?.icon;
  const four = [
    'kubeWindows.retry',
    'kubeWindows.rebootNode',
    'kubeWindows.restartService',
    'kubeWindows.restartWorkload',
  ];
  assert.equal(new Set([...four, 'kubeWindows.refresh'].map(icon)).size, 5);
});

test('one name: the activity bar says "Windows on Kubernetes", the views, categories and titles "kube-windows"', () => {
  const containers = contributes.viewsContainers.activitybar as { id: string; title: string }[];
  assert.deepEqual(
    containers.map((c) => c.title),
    ['Windows on Kubernetes'],
  );
  for (const views of Object.values(
    contributes.views as Record<string, { id: string; name: string; contextualTitle?: string }[]>,
  ))
    for (const v of views) {
      assert.equal(v.contextualTitle, 'kube-windows', `${v.id}: the view's contextual title`);
      assert.doesNotMatch(v.name, /kube[ -]?windows|windows on kubernetes/i, `${v.id}: the container already names it`);
    }
  // No other spelling of the name anywhere a user reads: package.json, the messages in src/.
  const variants = /\b(?:Kube[ -]?Windows|kube windows|kubewindows|KubeWindows|Kube-windows|kube-Windows)\b/;
  const text = JSON.stringify({ ...contributes, viewsContainers: undefined });
  assert.doesNotMatch(text.replace(/kubeWindows[.\w]*/g, ''), variants);
  for (const file of sourceFiles())
    for (const [i, line] of readFileSync(file, 'utf8').split('\n').entries())
      for (const literal of line.match(/(['"`])(?:(?!\1).)*\1/g) ?? [])
        assert.doesNotMatch(literal.replace(/kubeWindows[.\w]*/g, ''), variants, `${file}:${i + 1}: ${literal}`);
});

test('counts are written properly: no "node(s)" in a message; the one helper says "1 node", "2 nodes"', () => {
  for (const file of sourceFiles())
    for (const [i, line] of readFileSync(file, 'utf8').split('\n').entries()) {
      // The scheduler's own words ("3 node(s) didn't match …") are quoted, not written by us.
      if (/nodes are available:/.test(line)) continue;
      for (const literal of line.match(/(['"`])(?:(?!\1).)*\1/g) ?? [])
        // The text of the literal, without the code of its ${…} parts (`${show(s)}` is a call, not a plural).
        assert.doesNotMatch(
          literal.replace(/\$\{[^}]*\}/g, ''),
          /[A-Za-z]\((?:s|es)\)/,
          `${file}:${i + 1}: use counted() from src/core/plural.ts`,
        );
    }
});

function sourceFiles(dir = join(ROOT, 'src')): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

test('every setting has a type, a description, a scope and a default; enum values are described', () => {
  const settings = contributes.configuration.properties as Record<string, Record<string, unknown>>;
  assert.ok(Object.keys(settings).length > 0);
  for (const [key, s] of Object.entries(settings)) {
    assert.match(key, /^kubeWindows\.[a-z][A-Za-z]*(\.[a-z][A-Za-z]*)*$/, `${key}: settings are kubeWindows.camelCase`);
    assert.ok(s.type, `${key}: no type`);
    assert.ok(s.description || s.markdownDescription, `${key}: no description`);
    assert.ok(
      ['application', 'machine', 'machine-overridable', 'window', 'resource', 'language-overridable'].includes(
        String(s.scope),
      ),
      `${key}: scope ${String(s.scope)}`,
    );
    assert.ok('default' in s, `${key}: no default`);
    if (Array.isArray(s.enum)) {
      const described = (s.enumDescriptions ?? s.markdownEnumDescriptions) as unknown[] | undefined;
      assert.equal(described?.length, s.enum.length, `${key}: every enum value needs a description`);
    }
  }
  // Paths and credentials that point into this machine are not synced to other machines.
  for (const key of ['kubeWindows.kubeconfig', 'kubeWindows.ssh.privateKeyPath', 'kubeWindows.join.payloadFolder']) {
    assert.equal(settings[key]?.scope, 'machine', `${key} must be machine-scoped`);
  }
});

// The command modules import `vscode`: load them after the hook (they only declare at load time).
const fake = createFakeVscode();
const unhook = hookVscodeModule(() => fake);
test.after(() => unhook());

async function commandTables(): Promise<Record<string, { run: unknown; palette?: false | string }>> {
  const { JOIN_COMMANDS } = await import('../../src/extension/join-commands');
  const { MACHINESET_COMMANDS } = await import('../../src/extension/machineset-commands');
  const { MIRROR_COMMANDS } = await import('../../src/extension/mirror-commands');
  const { NODE_COMMANDS } = await import('../../src/extension/node-commands');
  const { POD_COMMANDS } = await import('../../src/extension/pod-commands');
  const { NODE_ACTION_COMMANDS } = await import('../../src/extension/node-actions');
  const { POLICY_COMMANDS } = await import('../../src/extension/policy-commands');
  return {
    ...JOIN_COMMANDS,
    ...MACHINESET_COMMANDS,
    ...MIRROR_COMMANDS,
    ...NODE_COMMANDS,
    ...POD_COMMANDS,
    ...NODE_ACTION_COMMANDS,
    ...POLICY_COMMANDS,
  };
}

test("the command tables' commands are contributed, and the Command Palette shows them where their table says", async () => {
  const tables = await commandTables();
  assert.ok(Object.keys(tables).length > 20);
  const contributed = new Set(commands.map((c) => c.command));
  const palette = new Map((menus.commandPalette ?? []).map((e) => [e.command, e.when]));
  for (const [id, entry] of Object.entries(tables)) {
    assert.ok(contributed.has(id), `${id} is in a command table but package.json does not contribute it`);
    assert.ok(EXTENSION_COMMANDS.includes(id), `${id} is missing from test/support/commands.ts`);
    const expected = entry.palette === false ? 'false' : entry.palette;
    assert.equal(
      palette.get(id),
      expected,
      `${id}: package.json's commandPalette when-clause is not its table's (${String(expected)})`,
    );
  }
});
