// A small stand-in for the `vscode` module, enough to load the extension bundle and drive its
// activation without VS Code: it records what the extension asks of the editor (commands,
// messages, the language status item, the output channel). Every other name the real module
// exports is a harmless deep stub, so a library touching it at load time does not crash.
import Module from 'node:module';
import { readFileSync } from 'node:fs';

type Listener<T> = (e: T) => unknown;

export class FakeEventEmitter<T> {
  private listeners: Listener<T>[] = [];
  readonly event = (listener: Listener<T>) => {
    this.listeners.push(listener);
    return { dispose: () => (this.listeners = this.listeners.filter((l) => l !== listener)) };
  };
  fire(e: T): void {
    for (const l of [...this.listeners]) l(e);
  }
  dispose(): void {
    this.listeners = [];
  }
}

export interface Shown {
  kind: 'error' | 'warning' | 'information';
  message: string;
  items: string[];
  /** The MessageOptions (modal, detail) when the call passed them. */
  options?: { modal?: boolean; detail?: string };
}

/** A question the extension asked (quick pick, input box, open dialog), in order. */
export interface Question {
  kind: 'quickPick' | 'input' | 'open';
  /** Title, prompt or placeholder (whichever the call gave), for matching in tests. */
  text: string;
  options: Record<string, unknown>;
  /** Quick pick: the labels offered. */
  items?: string[];
  /** Input box: the validation messages the rejected replies got. */
  rejected?: string[];
  /** Multi-step inputs: the counter and whether a Back button was offered. */
  step?: number;
  totalSteps?: number;
  back?: boolean;
}

/**
 * The scripted reply to the next question: a quick pick label, an input box text, a file path for
 * an open dialog, or undefined (the user pressed Escape). An input reply that validateInput
 * rejects is recorded in `rejected` and the next reply is taken, as a user retyping.
 */
export type Reply = string | undefined;

/** The reply that presses a multi-step input's Back button (createQuickPick / createInputBox). */
export const BACK = '⟵ Back';

/** The part of a QuickPick / InputBox the fake reads and drives. */
interface FakeQuickInput {
  title?: string;
  step?: number;
  totalSteps?: number;
  placeholder?: string;
  prompt?: string;
  value: string;
  password?: boolean;
  ignoreFocusOut?: boolean;
  busy?: boolean;
  enabled?: boolean;
  validationMessage?: string;
  buttons: readonly unknown[];
  items?: readonly { label: string }[];
  activeItems?: readonly { label: string }[];
  selectedItems?: readonly { label: string }[];
  disposed: boolean;
}

export interface FakeDocument {
  languageId: string;
  content: string;
  shown: number;
  /** The options of the last showTextDocument (selection, preview). */
  showOptions?: Record<string, unknown>;
  getText(): string;
  /** Set for documents opened from a URI (content providers), and `untitled:Untitled-N` for new ones with content. */
  uri?: FakeUri;
}

export interface FakeProgress {
  title: string;
  options: Record<string, unknown>;
  reports: { message?: string; increment?: number }[];
  /** Cancels the running task (the token fires), as the notification's Cancel button. */
  cancel(): void;
}

export interface FakeStatusItem {
  id: string;
  selector: unknown;
  name?: string;
  text: string;
  detail?: string;
  severity?: number;
  busy?: boolean;
  command?: { command: string; title: string };
  disposed: boolean;
}

export interface FakeLog {
  name: string;
  options: unknown;
  lines: { level: string; text: string }[];
  shown: number;
}

/** A terminal the extension created; with a pty, `open` has been called as VS Code does on show. */
export interface FakeTerminal {
  name: string;
  options: Record<string, unknown>;
  pty?: {
    onDidWrite: (l: (text: string) => void) => unknown;
    onDidClose?: (l: (code: number | void) => void) => unknown;
    open(d: { columns: number; rows: number } | undefined): void;
    close(): void;
    handleInput?(data: string): void;
    setDimensions?(d: { columns: number; rows: number }): void;
  };
  /** Everything the pty wrote. */
  output: string;
  /** Set when the pty fired onDidClose (the exit code, or null for none). */
  closedWith?: number | null;
  shown: number;
  disposed: boolean;
}

export interface FakeUri {
  scheme: string;
  path: string;
  fsPath: string;
  toString(): string;
}

function fakeUri(text: string): FakeUri {
  const url = new URL(text);
  const path = decodeURIComponent(url.pathname);
  return { scheme: url.protocol.replace(/:$/, ''), path, fsPath: path, toString: () => text };
}

/** A deep stub: every property is another stub; callable and constructible. */
function stub(): unknown {
  const target = function () {};
  return new Proxy(target, {
    get: (t, key) =>
      key === 'prototype' ? t.prototype : key === Symbol.toPrimitive ? () => '' : key === 'then' ? undefined : stub(),
    apply: () => stub(),
    construct: () => stub() as object,
  });
}

/** The object, with a deep stub for every member it does not model. */
function withFallback<T extends object>(object: T): T {
  return new Proxy(object, {
    get: (t, key) => (key in t ? (t as Record<string | symbol, unknown>)[key] : key === 'then' ? undefined : stub()),
  });
}

let exportNames: string[] | undefined;

function vscodeExportNames(): string[] {
  if (exportNames === undefined) {
    const dts = readFileSync(Module.createRequire(__filename).resolve('@types/vscode/index.d.ts'), 'utf8');
    exportNames = [...dts.matchAll(/^\texport (?:class|enum|namespace|const|let|function) (\w+)/gm)].map((m) => m[1]);
  }
  return exportNames;
}

export class FakeThemeColor {
  constructor(readonly id: string) {}
}

export class FakeThemeIcon {
  constructor(
    readonly id: string,
    readonly color?: FakeThemeColor,
  ) {}
}

export class FakeMarkdownString {
  supportThemeIcons = false;
  constructor(readonly value = '') {}
}

export class FakeRange {
  constructor(
    readonly startLine: number,
    readonly startCharacter: number,
    readonly endLine: number,
    readonly endCharacter: number,
  ) {}
}

export class FakeCodeLens {
  constructor(
    readonly range: FakeRange,
    readonly command?: { title: string; command: string; arguments?: unknown[] },
  ) {}
}

/** A diagnostic as languages.getDiagnostics returns it (severity: 0 Error, 1 Warning, 2 Information, 3 Hint). */
export interface FakeDiagnostic {
  message: string;
  severity: number;
  code?: string | { value: string };
}

/** A diagnostic the extension set through a DiagnosticCollection (the real class's fields it sets). */
export class FakeSetDiagnostic {
  source?: string;
  code?: string | number;
  constructor(
    readonly range: FakeRange,
    readonly message: string,
    readonly severity: number = 0,
  ) {}
}

/** A DiagnosticCollection: what the extension set, by URI. */
export interface FakeDiagnosticCollection {
  name: string;
  entries: Map<string, FakeSetDiagnostic[]>;
  disposed: boolean;
}

export interface FakeCodeLensProvider {
  selector: unknown;
  provider: {
    provideCodeLenses(doc: { uri: FakeUri }): FakeCodeLens[] | undefined;
    onDidChangeCodeLenses?: (l: () => void) => unknown;
  };
}

export class FakeTreeItem {
  id?: string;
  description?: string;
  tooltip?: unknown;
  iconPath?: unknown;
  contextValue?: string;
  command?: { command: string; title: string; arguments?: unknown[] };
  constructor(
    readonly label: string,
    readonly collapsibleState: number = 0,
  ) {}
}

export interface FakeTreeView {
  id: string;
  options: { treeDataProvider: { getChildren(e?: unknown): unknown; getTreeItem(e: unknown): unknown } };
  /** Fires the view's onDidCollapseElement, as a user collapsing an item. */
  collapse: FakeEventEmitter<{ element: unknown }>;
  /** What reveal() was asked, in order. */
  revealed: { element: unknown; options?: { select?: boolean; focus?: boolean; expand?: boolean | number } }[];
  /** The TreeView object the extension got (it may set description or message on it). */
  handle: { description?: string; message?: string; dispose(): void };
}

/** The Back button object (QuickInputButtons.Back), compared by identity as in VS Code. */
const backButton = { iconPath: 'arrow-left', tooltip: 'Back' };

export function createFakeVscode(settings: Record<string, unknown> = {}) {
  const treeViews: FakeTreeView[] = [];
  const contentProviders = new Map<string, unknown>();
  const commands = new Map<string, (...args: unknown[]) => unknown>();
  const executed: unknown[][] = [];
  const shown: Shown[] = [];
  const statusItems: FakeStatusItem[] = [];
  const logs: FakeLog[] = [];
  const progress: string[] = [];
  const configChanged = new FakeEventEmitter<{ affectsConfiguration: (s: string) => boolean }>();
  const values = new Map<string, unknown>(Object.entries(settings));
  /** The answer the next message box gets (undefined: dismissed). */
  const answers: (string | undefined)[] = [];

  const questions: Question[] = [];
  /** Replies to quick picks, input boxes and open dialogs, in order (see Reply). */
  const replies: Reply[] = [];
  const documents: FakeDocument[] = [];
  const progressRuns: FakeProgress[] = [];
  const terminals: FakeTerminal[] = [];
  const codeLensProviders: FakeCodeLensProvider[] = [];
  /** What languages.getDiagnostics answers, by document URI. */
  const diagnostics = new Map<string, FakeDiagnostic[]>();
  const diagnosticCollections: FakeDiagnosticCollection[] = [];
  let untitled = 0;
  /** Other extensions, by id, as vscode.extensions.getExtension answers (none unless a test adds one). */
  const installedExtensions = new Map<string, unknown>();
  /**
   * The commands VS Code itself provides here (getCommands lists them with the registered ones). A desktop window's by
   * default; a test of code-server or the web removes what those lack (revealFileInOS).
   */
  const builtinCommands = new Set([
    'setContext',
    'vscode.open',
    'vscode.openFolder',
    'revealInExplorer',
    'revealFileInOS',
  ]);
  /** As vscode.env: where the extension host runs (remoteName) and in what UI; the clipboard's last text. */
  const env = { remoteName: undefined as string | undefined, uiKind: 1, clipboardText: '' };
  /** When true, executeCommand rejects an id neither registered nor built in, as VS Code does ("command '…' not found"). */
  const strict = { commands: false };
  /** The workspace folders' paths (getWorkspaceFolder answers for what is under one). */
  const workspaceFolderPaths: string[] = [];

  const show =
    (kind: Shown['kind']) =>
    (message: string, ...rest: unknown[]) => {
      const first = rest[0];
      const options = typeof first === 'object' && first !== null ? (first as Shown['options']) : undefined;
      const items = rest.filter((x): x is string => typeof x === 'string');
      shown.push({ kind, message, items, ...(options ? { options } : {}) });
      return Promise.resolve(answers.shift());
    };

  const ask = (kind: Question['kind'], options: Record<string, unknown> = {}, items?: string[]): Question => {
    const text = String(options.title ?? options.prompt ?? options.placeHolder ?? '');
    const q: Question = { kind, text, options, ...(items ? { items } : {}) };
    questions.push(q);
    return q;
  };

  /**
   * A QuickPick or InputBox driven by the scripted replies when shown: BACK presses Back, undefined hides it
   * (Escape), a label picks that item, a text is typed and accepted (a text the input's validation refuses is
   * recorded in `rejected` and the next reply is typed, as a user retyping).
   */
  function quickInput(kind: 'quickPick' | 'input') {
    const accept = new FakeEventEmitter<void>();
    const hide = new FakeEventEmitter<void>();
    const button = new FakeEventEmitter<unknown>();
    const changed = new FakeEventEmitter<string>();
    const selection = new FakeEventEmitter<unknown>();
    const input: FakeQuickInput & Record<string, unknown> = {
      value: '',
      buttons: [],
      disposed: false,
      onDidAccept: accept.event,
      onDidHide: hide.event,
      onDidTriggerButton: button.event,
      onDidChangeValue: changed.event,
      onDidChangeSelection: selection.event,
      onDidChangeActive: new FakeEventEmitter<unknown>().event,
      show: () => void drive(),
      hide: () => hide.fire(),
      dispose: () => void (input.disposed = true),
    };
    const settledOrDisposed = async () => {
      for (let i = 0; i < 50 && !input.disposed && input.busy; i++) await new Promise((r) => setImmediate(r));
    };
    const drive = async () => {
      await new Promise((r) => setImmediate(r));
      await settledOrDisposed();
      if (input.disposed) return;
      const back = input.buttons.includes(backButton);
      const q = ask(
        kind,
        {
          title: input.title,
          placeHolder: input.placeholder,
          prompt: input.prompt,
          value: input.value,
          password: input.password,
          ignoreFocusOut: input.ignoreFocusOut,
          step: input.step,
          totalSteps: input.totalSteps,
          ...(kind === 'quickPick' ? { activeItems: (input.activeItems ?? []).map((x) => x.label) } : {}),
        },
        kind === 'quickPick' ? (input.items ?? []).map((x) => x.label) : undefined,
      );
      Object.assign(q, { back, ...(input.step ? { step: input.step, totalSteps: input.totalSteps } : {}) });
      for (;;) {
        const reply = replies.shift();
        if (reply === undefined) return hide.fire();
        if (reply === BACK) {
          if (!back) (q.rejected ??= []).push('no Back button on this step');
          return back ? button.fire(backButton) : hide.fire();
        }
        if (kind === 'quickPick') {
          const item = (input.items ?? []).find((x) => x.label === reply);
          if (!item) {
            (q.rejected ??= []).push(`no item "${reply}"`);
            return hide.fire();
          }
          input.selectedItems = [item];
          input.activeItems = [item];
          selection.fire([item]);
          return accept.fire();
        }
        input.value = reply;
        changed.fire(reply);
        accept.fire();
        await new Promise((r) => setImmediate(r));
        if (input.disposed) return;
        (q.rejected ??= []).push(input.validationMessage ?? '(not accepted)');
      }
    };
    return input;
  }

  const activeEditorChanged = new FakeEventEmitter<unknown>();
  const closedDocument = new FakeEventEmitter<unknown>();

  const api = {
    version: '1.100.0',
    EventEmitter: FakeEventEmitter,
    TreeItem: FakeTreeItem,
    ThemeIcon: FakeThemeIcon,
    ThemeColor: FakeThemeColor,
    MarkdownString: FakeMarkdownString,
    TreeItemCollapsibleState: { None: 0, Collapsed: 1, Expanded: 2 },
    Uri: { parse: fakeUri, file: (path: string) => fakeUri(`file://${path}`) },
    LanguageStatusSeverity: { Information: 0, Warning: 1, Error: 2 },
    ProgressLocation: { SourceControl: 1, Window: 10, Notification: 15 },
    DiagnosticSeverity: { Error: 0, Warning: 1, Information: 2, Hint: 3 },
    CodeLens: FakeCodeLens,
    Range: FakeRange,
    Diagnostic: FakeSetDiagnostic,
    LogLevel: { Off: 0, Trace: 1, Debug: 2, Info: 3, Warning: 4, Error: 5 },
    QuickInputButtons: { Back: backButton },
    window: {
      createQuickPick: () => quickInput('quickPick'),
      createInputBox: () => quickInput('input'),
      activeTextEditor: undefined as { document: { uri: FakeUri; languageId: string } } | undefined,
      onDidChangeActiveTextEditor: activeEditorChanged.event,
      createOutputChannel: (name: string, options: unknown) => {
        const log: FakeLog = { name, options, lines: [], shown: 0 };
        logs.push(log);
        const write = (level: string) => (text: string) => log.lines.push({ level, text });
        return {
          name,
          logLevel: 3,
          onDidChangeLogLevel: new FakeEventEmitter<number>().event,
          trace: write('trace'),
          debug: write('debug'),
          info: write('info'),
          warn: write('warn'),
          error: (e: string | Error) => log.lines.push({ level: 'error', text: String(e) }),
          append: write('append'),
          appendLine: write('appendLine'),
          replace: write('replace'),
          clear: () => undefined,
          show: () => log.shown++,
          hide: () => undefined,
          dispose: () => undefined,
        };
      },
      createTreeView: (id: string, options: FakeTreeView['options']) => {
        const collapse = new FakeEventEmitter<{ element: unknown }>();
        const revealed: FakeTreeView['revealed'] = [];
        const handle: FakeTreeView['handle'] & Record<string, unknown> = { dispose: () => undefined };
        treeViews.push({ id, options, collapse, revealed, handle });
        const provider = options.treeDataProvider as FakeTreeView['options']['treeDataProvider'] & {
          getParent?(e: unknown): unknown;
        };
        // As VS Code does: reveal needs getParent, and `expand` asks for the children of the element
        // (and of those that open expanded), levels deep.
        const expanded = new Map<unknown, unknown>();
        const keyOf = (element: unknown) => (provider.getTreeItem(element) as { id?: string }).id ?? element;
        const expand = async (element: unknown, levels: number): Promise<void> => {
          if (levels <= 0) return;
          expanded.set(keyOf(element), element);
          for (const child of ((await provider.getChildren(element)) as unknown[]) ?? []) {
            if ((provider.getTreeItem(child) as { collapsibleState?: number }).collapsibleState === 2)
              await expand(child, 1);
            else await expand(child, levels - 1);
          }
        };
        const reveal = async (element: unknown, options?: FakeTreeView['revealed'][number]['options']) => {
          if (!provider.getParent)
            throw new Error('TreeDataProvider does not implement getParent: reveal is not possible');
          revealed.push({ element, ...(options ? { options } : {}) });
          const levels = options?.expand === true ? 1 : typeof options?.expand === 'number' ? options.expand : 0;
          await expand(element, levels);
        };
        // As VS Code does: a change event of an expanded element (or of the whole tree) makes the view ask
        // for its children again, so that a loading row is replaced by what arrived later.
        const changes = (provider as { onDidChangeTreeData?: (listener: (e: unknown) => void) => unknown })
          .onDidChangeTreeData;
        changes?.call(provider, (changed: unknown) => {
          const keys = changed === undefined || changed === null ? [...expanded.keys()] : [changed].flat().map(keyOf);
          for (const key of keys) {
            const element = expanded.get(key);
            if (element !== undefined) void expand(element, 1).catch(() => undefined);
          }
        });
        // VS Code's TreeView has these too; the walkthrough listens for the view being shown.
        const visibility = new FakeEventEmitter<{ visible: boolean }>();
        return Object.assign(handle, {
          onDidCollapseElement: collapse.event,
          onDidChangeVisibility: visibility.event,
          visible: false,
          reveal,
        });
      },
      visibleTextEditors: [] as unknown[],
      onDidChangeVisibleTextEditors: new FakeEventEmitter<unknown[]>().event,
      showErrorMessage: show('error'),
      showWarningMessage: show('warning'),
      showInformationMessage: show('information'),
      withProgress: async (options: { title?: string }, task: (p: unknown, t: unknown) => Promise<unknown>) => {
        progress.push(options.title ?? '');
        const cancelled = new FakeEventEmitter<void>();
        const token = { isCancellationRequested: false, onCancellationRequested: cancelled.event };
        const run: FakeProgress = {
          title: options.title ?? '',
          options: options as Record<string, unknown>,
          reports: [],
          cancel: () => {
            token.isCancellationRequested = true;
            cancelled.fire();
          },
        };
        progressRuns.push(run);
        return task({ report: (r: { message?: string; increment?: number }) => run.reports.push(r) }, token);
      },
      showQuickPick: async (
        items: readonly ({ label: string } | string)[] | Promise<readonly ({ label: string } | string)[]>,
        options: Record<string, unknown> = {},
      ) => {
        const list = await items;
        const label = (x: { label: string } | string) => (typeof x === 'string' ? x : x.label);
        ask('quickPick', options, list.map(label));
        const reply = replies.shift();
        return reply === undefined ? undefined : list.find((x) => label(x) === reply);
      },
      showInputBox: async (options: Record<string, unknown> = {}) => {
        const q = ask('input', options);
        const validate = options.validateInput as ((v: string) => unknown) | undefined;
        for (;;) {
          const reply = replies.shift();
          if (reply === undefined || !validate) return reply;
          const verdict = await validate(reply);
          const message =
            typeof verdict === 'string' ? verdict : (verdict as { message?: string } | null | undefined)?.message;
          if (!message) return reply;
          (q.rejected ??= []).push(message);
        }
      },
      showOpenDialog: async (options: Record<string, unknown> = {}) => {
        ask('open', options);
        const reply = replies.shift();
        return reply === undefined ? undefined : [fakeUri(`file://${reply}`)];
      },
      createTerminal: (options: Record<string, unknown>) => {
        const pty = options.pty as FakeTerminal['pty'];
        const t: FakeTerminal = {
          name: String(options.name ?? ''),
          options,
          output: '',
          shown: 0,
          disposed: false,
          ...(pty ? { pty } : {}),
        };
        terminals.push(t);
        if (pty) {
          pty.onDidWrite((text) => (t.output += text));
          pty.onDidClose?.((code) => (t.closedWith = typeof code === 'number' ? code : null));
          // VS Code opens the pty when the terminal is created, with its size (the test may resize later).
          queueMicrotask(() => pty.open({ columns: 120, rows: 30 }));
        }
        return {
          name: t.name,
          show: () => t.shown++,
          dispose: () => {
            t.disposed = true;
            pty?.close();
          },
        };
      },
      showTextDocument: async (doc: FakeDocument, options?: Record<string, unknown>) => {
        doc.shown++;
        if (options) doc.showOptions = options;
        // edit(): inserts are appended (the drafts insert their text into an empty untitled document).
        const edit = async (build: (b: { insert(at: unknown, text: string): void }) => void) => {
          build({ insert: (_at, text) => void (doc.content += text) });
          return true;
        };
        return { document: doc, edit };
      },
    },
    languages: {
      createLanguageStatusItem: (id: string, selector: unknown) => {
        const item: FakeStatusItem = { id, selector, text: '', disposed: false };
        statusItems.push(item);
        return Object.assign(item, { dispose: () => (item.disposed = true) });
      },
      setTextDocumentLanguage: async (doc: FakeDocument, languageId: string) => {
        doc.languageId = languageId;
        return doc;
      },
      registerCodeLensProvider: (selector: unknown, provider: FakeCodeLensProvider['provider']) => {
        const entry = { selector, provider };
        codeLensProviders.push(entry);
        return { dispose: () => codeLensProviders.splice(codeLensProviders.indexOf(entry), 1) };
      },
      getDiagnostics: (uri: FakeUri) => diagnostics.get(uri.toString()) ?? [],
      onDidChangeDiagnostics: new FakeEventEmitter<{ uris: FakeUri[] }>().event,
      createDiagnosticCollection: (name = '') => {
        const c: FakeDiagnosticCollection = { name, entries: new Map(), disposed: false };
        diagnosticCollections.push(c);
        return {
          name,
          set: (uri: FakeUri, list: FakeSetDiagnostic[] | undefined) =>
            list ? c.entries.set(uri.toString(), [...list]) : c.entries.delete(uri.toString()),
          delete: (uri: FakeUri) => c.entries.delete(uri.toString()),
          get: (uri: FakeUri) => c.entries.get(uri.toString()),
          clear: () => c.entries.clear(),
          dispose: () => (c.disposed = true),
        };
      },
    },
    extensions: {
      getExtension: (id: string) => installedExtensions.get(id),
    },
    commands: {
      registerCommand: (id: string, fn: (...args: unknown[]) => unknown) => {
        if (commands.has(id)) throw new Error(`command '${id}' already exists`);
        commands.set(id, fn);
        return { dispose: () => commands.delete(id) };
      },
      executeCommand: async (id: string, ...args: unknown[]) => {
        executed.push([id, ...args]);
        if (strict.commands && !commands.has(id) && !builtinCommands.has(id))
          throw new Error(`command '${id}' not found`);
        return commands.get(id)?.(...args);
      },
      getCommands: async () => [...builtinCommands, ...commands.keys()],
    },
    UIKind: { Desktop: 1, Web: 2 },
    env: {
      get remoteName() {
        return env.remoteName;
      },
      get uiKind() {
        return env.uiKind;
      },
      clipboard: {
        writeText: async (text: string) => void (env.clipboardText = text),
        readText: async () => env.clipboardText,
      },
    },
    workspace: {
      getWorkspaceFolder: (uri: FakeUri) => {
        const path = (uri as { fsPath?: string }).fsPath ?? '';
        const root = workspaceFolderPaths.find((p) => path === p || path.startsWith(`${p}/`));
        return root === undefined ? undefined : { uri: fakeUri(`file://${root}`), name: root, index: 0 };
      },
      getConfiguration: (section: string) => ({
        get: (key: string, fallback?: unknown) => {
          const full = `${section}.${key}`;
          return values.has(full) ? values.get(full) : fallback;
        },
      }),
      onDidChangeConfiguration: configChanged.event,
      registerTextDocumentContentProvider: (scheme: string, provider: unknown) => {
        contentProviders.set(scheme, provider);
        return { dispose: () => contentProviders.delete(scheme) };
      },
      openTextDocument: async (arg: { language?: string; content?: string } | unknown) => {
        const o = (typeof arg === 'object' && arg !== null && !('scheme' in arg) ? arg : {}) as {
          language?: string;
          content?: string;
        };
        // A URI of a registered content provider: a read-only virtual document with the provider's text.
        const uri = typeof arg === 'object' && arg !== null && 'scheme' in arg ? (arg as FakeUri) : undefined;
        const provider = uri
          ? (contentProviders.get(uri.scheme) as { provideTextDocumentContent?: (u: FakeUri) => string } | undefined)
          : undefined;
        const content = provider?.provideTextDocumentContent
          ? provider.provideTextDocumentContent(uri as FakeUri)
          : (o.content ?? '');
        const own = uri ?? (o.content !== undefined ? fakeUri(`untitled:Untitled-${++untitled}`) : undefined);
        // An untitled URI with a name (untitled:windows-machineset-x.yaml) opens the same document again.
        const again =
          uri?.scheme === 'untitled' ? documents.find((d) => d.uri?.toString() === uri.toString()) : undefined;
        if (again) return again;
        const doc: FakeDocument = {
          languageId: o.language ?? (uri?.path.endsWith('.yaml') ? 'yaml' : 'plaintext'),
          content,
          shown: 0,
          getText: () => doc.content,
          ...(own ? { uri: own } : {}),
        };
        documents.push(doc);
        return doc;
      },
      onDidCloseTextDocument: closedDocument.event,
      onDidOpenTextDocument: new FakeEventEmitter<unknown>().event,
      textDocuments: documents,
    },
  };

  // Every name the real module exports (read from @types/vscode), so that `import * as vscode`
  // helpers, which copy own keys, see them all; the ones not modelled above are deep stubs.
  const module: Record<string, unknown> = {};
  for (const name of vscodeExportNames()) module[name] = stub();
  for (const [name, value] of Object.entries(api))
    module[name] = typeof value === 'object' ? withFallback(value) : value;

  return {
    module,
    builtinCommands,
    env,
    strict,
    workspaceFolderPaths,
    installedExtensions,
    treeViews,
    contentProviders,
    commands,
    executed,
    shown,
    statusItems,
    logs,
    progress,
    answers,
    questions,
    replies,
    documents,
    progressRuns,
    terminals,
    codeLensProviders,
    diagnostics,
    diagnosticCollections,
    /** Closes a document, as the user closing its editor (onDidCloseTextDocument fires). */
    closeDocument(doc: FakeDocument) {
      documents.splice(documents.indexOf(doc), 1);
      closedDocument.fire(doc);
    },
    /** Makes a YAML document with this URI the active editor's, as when the user switches tabs. */
    setActiveDocument(uri: string | undefined) {
      api.window.activeTextEditor =
        uri === undefined ? undefined : { document: { uri: fakeUri(uri), languageId: 'yaml' } };
      activeEditorChanged.fire(api.window.activeTextEditor);
    },
    /** Changes settings and fires onDidChangeConfiguration as VS Code does. */
    setSettings(changes: Record<string, unknown>) {
      for (const [k, v] of Object.entries(changes)) values.set(k, v);
      const keys = Object.keys(changes);
      configChanged.fire({ affectsConfiguration: (s) => keys.some((k) => k === s || k.startsWith(`${s}.`)) });
    },
  };
}

export type FakeVscode = ReturnType<typeof createFakeVscode>;

/** Loads a CommonJS bundle with `require('vscode')` answered by the fake (fresh module each time). */
export function loadWithFakeVscode<T>(bundle: string, fake: FakeVscode): T {
  const loader = Module as unknown as { _load: (request: string, ...rest: unknown[]) => unknown };
  const original = loader._load;
  loader._load = function (request: string, ...rest: unknown[]) {
    if (request === 'vscode') return fake.module;
    return original.call(this, request, ...rest);
  };
  try {
    const load = Module.createRequire(__filename);
    const resolved = load.resolve(bundle);
    delete load.cache[resolved];
    return load(resolved) as T;
  } finally {
    loader._load = original;
  }
}

/**
 * Answers `require('vscode')` with the module of `current()` for as long as the hook is installed:
 * for test files that import extension modules directly (dynamically, after installing it) and
 * swap fakes between tests. Returns the function that removes the hook.
 */
export function hookVscodeModule(current: () => FakeVscode): () => void {
  const loader = Module as unknown as { _load: (request: string, ...rest: unknown[]) => unknown };
  const original = loader._load;
  // The module object is cached by whoever requires it once: delegate every access to the current fake.
  const delegate = new Proxy(
    {},
    {
      get: (_t, key) => current().module[key as string],
      has: (_t, key) => key in current().module,
      ownKeys: () => Reflect.ownKeys(current().module),
      getOwnPropertyDescriptor: (_t, key) => {
        const module = current().module;
        return key in module
          ? { configurable: true, enumerable: true, writable: false, value: module[key as string] }
          : undefined;
      },
    },
  );
  loader._load = function (request: string, ...rest: unknown[]) {
    if (request === 'vscode') return delegate;
    return original.call(this, request, ...rest);
  };
  return () => {
    loader._load = original;
  };
}
