// The Get Started walkthrough's own commands (open the example manifest, copy the sandbox command)
// and the facts its steps complete on. The steps are in package.json (contributes.walkthroughs) with
// their pages under media/walkthrough/. A fact is a context key the steps' `onContext` completion
// events watch, set when the real thing happened (a kube-windows finding shown in an editor, one of
// our quick fixes applied, the cluster tree shown, a join plan opened) and kept in globalState.
// VS Code starts following completion events only when a walkthrough is first shown, and ignores a
// context already true then; so each step's event is "<fact> && activeEditor == gettingStartedPage":
// it turns true when the walkthrough page becomes active, and steps done before (or in an earlier
// window) are counted.
import * as vscode from 'vscode';
import { PLAN_SCHEME } from './join-commands';

/** The command language-client.ts puts on each of our code actions: VS Code runs it after the edit. */
export const QUICK_FIX_APPLIED = 'kubeWindows.quickFixApplied';
const SANDBOX_COMMAND = 'npm ci && npm run sandbox';
/** The language server's diagnostic source (server/convert.ts). */
const DIAGNOSTIC_SOURCE = 'kube-windows';
const FACTS_KEY = 'kubeWindows.walkthrough.facts';

/** Each fact's context key, as package.json's completion events name them. */
const WALKTHROUGH_FACTS = {
  manifestOpened: 'kubeWindows.walkthrough.manifestOpened',
  findingShown: 'kubeWindows.walkthrough.findingShown',
  quickFixApplied: 'kubeWindows.walkthrough.quickFixApplied',
  clusterViewShown: 'kubeWindows.walkthrough.clusterViewShown',
  sandboxCommandCopied: 'kubeWindows.walkthrough.sandboxCommandCopied',
  joinPlanShown: 'kubeWindows.walkthrough.joinPlanShown',
} as const;
type Fact = keyof typeof WALKTHROUGH_FACTS;

let facts: WalkthroughFacts | undefined;
const pending = new Set<Fact>();

/** Records a fact from elsewhere in the extension (the cluster view), before or after registerWalkthrough. */
export function recordWalkthroughFact(fact: Fact): void {
  if (facts) void facts.record(fact);
  else pending.add(fact);
}

export function registerWalkthrough(context: vscode.ExtensionContext): void {
  const known = new WalkthroughFacts(context.globalState);
  facts = known;
  context.subscriptions.push(
    known,
    { dispose: () => (facts = undefined) },
    vscode.commands.registerCommand('kubeWindows.openWalkthroughExample', async () => {
      // An unsaved copy: the user may edit it freely, and nothing is written to their workspace.
      const bytes = await vscode.workspace.fs.readFile(
        vscode.Uri.file(context.asAbsolutePath('media/walkthrough/example-deployment.yaml')),
      );
      const doc = await vscode.workspace.openTextDocument({
        language: 'yaml',
        content: new TextDecoder().decode(bytes),
      });
      await vscode.window.showTextDocument(doc);
    }),
    // The id written out: package-conventions' test looks for each contributed command's registerCommand.
    vscode.commands.registerCommand('kubeWindows.quickFixApplied', () => known.record('quickFixApplied')),
    vscode.commands.registerCommand('kubeWindows.copySandboxCommand', async () => {
      await vscode.env.clipboard.writeText(SANDBOX_COMMAND);
      await known.record('sandboxCommandCopied');
      void vscode.window.showInformationMessage(
        `Copied "${SANDBOX_COMMAND}": run it in a clone of the kube-windows repository.`,
      );
    }),
  );
  known.restore();
  for (const fact of pending) void known.record(fact);
  pending.clear();
  known.watchEditors();
}

class WalkthroughFacts implements vscode.Disposable {
  private readonly watchers: vscode.Disposable[] = [];
  private readonly done: Set<Fact>;

  constructor(private readonly state: vscode.Memento) {
    const saved = state.get<unknown>(FACTS_KEY);
    this.done = new Set(
      Array.isArray(saved) ? saved.filter((f): f is Fact => typeof f === 'string' && f in WALKTHROUGH_FACTS) : [],
    );
  }

  has(fact: Fact): boolean {
    return this.done.has(fact);
  }

  /** The facts of earlier windows become context keys again: VS Code ticks their steps when it shows them. */
  restore(): void {
    for (const fact of this.done) void vscode.commands.executeCommand('setContext', WALKTHROUGH_FACTS[fact], true);
  }

  async record(fact: Fact): Promise<void> {
    await vscode.commands.executeCommand('setContext', WALKTHROUGH_FACTS[fact], true);
    if (this.done.has(fact)) return;
    this.done.add(fact);
    await this.state.update(FACTS_KEY, [...this.done]);
  }

  /** A YAML editor, a kube-windows finding in a visible editor, a join plan opened: each recorded once. */
  watchEditors(): void {
    const visible = () => vscode.window.visibleTextEditors.map((e) => e.document);
    const look = () => {
      const docs = visible();
      if (!this.has('manifestOpened') && docs.some((d) => d.languageId === 'yaml')) void this.record('manifestOpened');
      if (!this.has('joinPlanShown') && docs.some((d) => d.uri.scheme === PLAN_SCHEME && /^\/join-/.test(d.uri.path)))
        void this.record('joinPlanShown');
      if (!this.has('findingShown') && docs.some((d) => ours(vscode.languages.getDiagnostics(d.uri))))
        void this.record('findingShown');
    };
    this.watchers.push(
      vscode.window.onDidChangeVisibleTextEditors(look),
      vscode.languages.onDidChangeDiagnostics((e) => {
        if (this.has('findingShown')) return;
        const shown = new Set(visible().map((d) => d.uri.toString()));
        if (e.uris.some((u) => shown.has(u.toString()) && ours(vscode.languages.getDiagnostics(u))))
          void this.record('findingShown');
      }),
    );
    look();
  }

  dispose(): void {
    for (const w of this.watchers) w.dispose();
  }
}

const ours = (diagnostics: readonly vscode.Diagnostic[]) => diagnostics.some((d) => d.source === DIAGNOSTIC_SOURCE);
