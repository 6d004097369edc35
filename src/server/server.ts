import {
  CodeActionKind,
  createConnection,
  DidChangeConfigurationNotification,
  NotificationType,
  ProposedFeatures,
  TextDocuments,
  TextDocumentSyncKind,
  type CodeAction,
  type Connection,
  type Diagnostic,
  type Hover,
  type InitializeResult,
} from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { ClusterSnapshot } from '../core/rules/facts';
import { fixAll, FIX_ALL_KIND, quickFixes } from './actions';
import { Analyzer, widenWindow, type Analysis, type ChangeWindow } from './analysis';
import { ruleTitle, toDiagnostic } from './convert';
import { completions } from './completion';
import { FileFilter } from './files';
import { hover } from './hover';
import { analyseChartTemplate, chartOfUri } from './helm';
import {
  CLUSTER_SNAPSHOT_NOTIFICATION,
  DEFAULT_SETTINGS,
  SECTION,
  STATUS_NOTIFICATION,
  type KubeWindowsSettings,
  type StatusParams,
} from '../shared/protocol';
import { readClientSettings } from './settings';
import { SyncedDocument } from './synced-document';
import { languageServerInvocation } from '../shared/language-server-command';
import { ExactApiLoader } from './exact-api';

const StatusNotification = new NotificationType<StatusParams>(STATUS_NOTIFICATION);
const ClusterSnapshotNotification = new NotificationType<ClusterSnapshot | null>(CLUSTER_SNAPSHOT_NOTIFICATION);

export function startServer(connection: Connection): void {
  // What changed in each document since its last analysis, taken from the editor's incremental
  // changes as they are applied: the analysis then re-splits and re-parses only that stretch.
  const changes = new Map<string, ChangeWindow>();
  const documents = new TextDocuments<SyncedDocument>({
    create: (uri, languageId, version, text) => new SyncedDocument(uri, languageId, version, text),
    update: (doc, contentChanges, version) => {
      // In place, as the library's own documents are updated; a whole-text change keeps the client's
      // text and becomes the range edit it amounts to (synced-document.ts).
      for (const change of contentChanges) {
        const { start, end, length } = doc.apply(change);
        changes.set(doc.uri, widenWindow(changes.get(doc.uri), length, start, end));
      }
      doc.version = version;
      return doc;
    },
  });
  let settings: KubeWindowsSettings = DEFAULT_SETTINGS;
  let filter = new FileFilter(settings.files);
  const analyzer = new Analyzer(settings);
  const exactApi = new ExactApiLoader((message) => void connection.window.showWarningMessage(message));
  /** kubeWindows.exactApi: loads (once) the validator the settings and cluster ask for; re-checks when it changes. */
  const applyExactApi = async () => {
    if (analyzer.setExactApi(await exactApi.validatorFor(settings, analyzer.cluster))) {
      results.clear();
      if (pull) connection.languages.diagnostics.refresh();
      for (const doc of documents.all()) schedule(doc.uri, 0);
    }
  };
  const results = new Map<string, Analysis | { version: number; skipped: string }>();
  const timers = new Map<string, NodeJS.Timeout | NodeJS.Immediate>();
  let pull = false;
  let configurationPull = false;
  let configurationRegistration = false;
  /** What the client sent at start: the settings a later answer or push does not name keep these values. */
  let initializationOptions: unknown;

  const log = (message: string) => connection.console.log(message);
  const guard =
    <A extends unknown[], R>(name: string, fallback: R, fn: (...args: A) => R) =>
    (...args: A): R => {
      try {
        return fn(...args);
      } catch (err) {
        // A bug must not take the server down: log it (one line, no secrets) and answer emptily.
        connection.console.error(`${name} failed: ${err instanceof Error ? err.message : String(err)}`);
        return fallback;
      }
    };

  connection.onInitialize((params): InitializeResult => {
    initializationOptions = params.initializationOptions;
    settings = readClientSettings(initializationOptions);
    filter = new FileFilter(settings.files);
    analyzer.configure(settings);
    void applyExactApi();
    pull = Boolean(params.capabilities.textDocument?.diagnostic);
    configurationPull = Boolean(params.capabilities.workspace?.configuration);
    // A registration the client did not offer to take is an error in some (eglot warns on every start).
    configurationRegistration = Boolean(params.capabilities.workspace?.didChangeConfiguration?.dynamicRegistration);
    return {
      capabilities: {
        textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental, save: { includeText: false } },
        codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix, FIX_ALL_KIND] },
        hoverProvider: true,
        completionProvider: { triggerCharacters: [':', ' '], resolveProvider: false },
        ...(pull ? { diagnosticProvider: { interFileDependencies: false, workspaceDiagnostics: false } } : {}),
      },
      serverInfo: { name: 'kube-windows' },
    };
  });

  connection.onInitialized(async () => {
    if (configurationPull && configurationRegistration)
      await connection.client
        .register(DidChangeConfigurationNotification.type, { section: 'kubeWindows' })
        .catch(() => undefined);
    if (configurationPull) await reloadSettings();
  });

  async function reloadSettings(pushed?: unknown): Promise<void> {
    let raw = pushed;
    if (configurationPull) {
      try {
        // null (a client that has no such section) keeps what was pushed, if anything.
        raw = ((await connection.workspace.getConfiguration(SECTION)) as unknown) ?? pushed;
      } catch {
        raw = pushed;
      }
    }
    settings = readClientSettings(raw, initializationOptions);
    filter = new FileFilter(settings.files);
    analyzer.configure(settings);
    void applyExactApi();
    results.clear();
    if (pull) connection.languages.diagnostics.refresh();
    for (const doc of documents.all()) schedule(doc.uri, 0);
  }

  connection.onDidChangeConfiguration(
    guard('configuration', undefined, (params) => {
      const pushed = (params.settings as { kubeWindows?: unknown } | undefined)?.kubeWindows;
      void reloadSettings(pushed);
    }),
  );

  connection.onNotification(
    ClusterSnapshotNotification,
    guard('cluster snapshot', undefined, (snapshot) => {
      analyzer.setCluster(
        snapshot && typeof snapshot === 'object' && Array.isArray(snapshot.windowsNodes) ? snapshot : undefined,
      );
      results.clear();
      if (pull) connection.languages.diagnostics.refresh();
      for (const doc of documents.all()) schedule(doc.uri, 0);
      void applyExactApi();
    }),
  );

  const immediate = new Set<string>();

  function schedule(uri: string, delay: number) {
    // An immediate check already queued reads the latest text anyway: a debounce must not delay
    // it (on open, the library announces the document as opened and then as changed).
    if (delay > 0 && immediate.has(uri)) return;
    const t = timers.get(uri);
    if (t) {
      clearTimeout(t as NodeJS.Timeout);
      clearImmediate(t as NodeJS.Immediate);
    }
    const run = () => {
      timers.delete(uri);
      immediate.delete(uri);
      validate(uri);
    };
    if (delay > 0) timers.set(uri, setTimeout(run, delay));
    else {
      immediate.add(uri);
      timers.set(uri, setImmediate(run));
    }
  }

  /** The analysis of the document's current version, computed now if it is stale. */
  function current(uri: string): Analysis | { version: number; skipped: string } | undefined {
    const doc = documents.get(uri);
    if (!doc) return undefined;
    const have = results.get(uri);
    if (have && have.version === doc.version) return have;
    return analyse(doc);
  }

  function analyse(doc: TextDocument): Analysis | { version: number; skipped: string } {
    const text = doc.getText();
    const skip = settings.enable ? filter.skipReason(doc.uri, text) : 'kube-windows is disabled (kubeWindows.enable)';
    const change = changes.get(doc.uri);
    changes.delete(doc.uri);
    const chart = skip ? undefined : chartOfUri(doc.uri);
    const result = skip
      ? { version: doc.version, skipped: skip }
      : chart
        ? analyseChartTemplate(chart, text, doc.version, settings.helm.valuesFiles, {
            severity: settings.rules,
            flavour: settings.flavour,
            cluster: analyzer.cluster,
            ...(settings.kubernetesVersion ? { kubernetesVersion: settings.kubernetesVersion } : {}),
          })
        : analyzer.analyze(doc.uri, text, doc.version, (offset) => doc.positionAt(offset).line, change);
    if (skip) analyzer.forget(doc.uri);
    results.set(doc.uri, result);
    if ('ruleErrors' in result)
      for (const e of result.ruleErrors)
        connection.console.error(`rule ${e.ruleId} failed on ${doc.uri}: ${e.message}`);
    return result;
  }

  const validate = guard('validation', undefined, (uri: string) => {
    const doc = documents.get(uri);
    if (!doc) return;
    const t0 = performance.now();
    const result = current(uri);
    if (!result) return;
    const diagnostics = 'findings' in result ? result.findings.map((f) => toDiagnostic(uri, f)) : [];
    if (!pull) void connection.sendDiagnostics({ uri, version: doc.version, diagnostics });
    const status =
      'findings' in result
        ? {
            uri,
            workloads: result.workloads,
            windowsWorkloads: result.windowsWorkloads,
            findings: result.findings.length,
            errors: diagnostics.filter((d) => d.severity === 1).length,
            ...(result.skipped ? { skipped: result.skipped } : {}),
          }
        : { uri, workloads: 0, windowsWorkloads: 0, findings: 0, errors: 0, skipped: result.skipped };
    void connection.sendNotification(StatusNotification, status);
    if ('rechecked' in result)
      log(
        `checked ${uri} v${doc.version}: ${result.rechecked} of ${result.documents.length} documents re-evaluated, ${result.findings.length} findings, ${(performance.now() - t0).toFixed(1)} ms`,
      );
  });

  documents.onDidOpen((e) => schedule(e.document.uri, 0));
  documents.onDidChangeContent((e) => {
    if (results.has(e.document.uri) || timers.has(e.document.uri)) schedule(e.document.uri, settings.debounceMs);
  });
  documents.onDidSave((e) => {
    if (timers.has(e.document.uri)) schedule(e.document.uri, 0);
  });
  documents.onDidClose((e) => {
    const uri = e.document.uri;
    const t = timers.get(uri);
    if (t) {
      clearTimeout(t as NodeJS.Timeout);
      clearImmediate(t as NodeJS.Immediate);
      timers.delete(uri);
    }
    immediate.delete(uri);
    results.delete(uri);
    changes.delete(uri);
    analyzer.forget(uri);
    if (!pull) void connection.sendDiagnostics({ uri, diagnostics: [] });
  });

  connection.languages.diagnostics.on(
    guard('pull diagnostics', { kind: 'full' as const, items: [] as Diagnostic[] }, (params) => {
      const result = current(params.textDocument.uri);
      const items =
        result && 'findings' in result ? result.findings.map((f) => toDiagnostic(params.textDocument.uri, f)) : [];
      return { kind: 'full' as const, items };
    }),
  );

  connection.onCodeAction(
    guard('code actions', [] as CodeAction[], (params) => {
      const doc = documents.get(params.textDocument.uri);
      const result = current(params.textDocument.uri);
      if (!doc || !result || !('findings' in result)) return [];
      const only = params.context.only;
      const wantsFixAll = only?.some((k) => FIX_ALL_KIND === k || FIX_ALL_KIND.startsWith(`${k}.`));
      if (wantsFixAll) {
        const action = fixAll(doc, {
          severity: settings.rules,
          flavour: settings.flavour,
          cluster: analyzer.cluster,
          ...(settings.kubernetesVersion ? { kubernetesVersion: settings.kubernetesVersion } : {}),
        });
        return action ? [action] : [];
      }
      if (only && !only.some((k) => CodeActionKind.QuickFix.startsWith(k))) return [];
      return quickFixes(doc, result, params.range, params.context.diagnostics);
    }),
  );

  connection.onHover(
    guard('hover', null as Hover | null, (params) => {
      const doc = documents.get(params.textDocument.uri);
      const result = current(params.textDocument.uri);
      if (!doc || !result || !('findings' in result)) return null;
      return hover(doc, result, params.position, ruleTitle);
    }),
  );

  connection.onCompletion(
    guard('completion', [], (params) => {
      const doc = documents.get(params.textDocument.uri);
      if (!doc || !settings.enable) return [];
      return completions(doc, params.position);
    }),
  );

  documents.listen(connection);
  connection.listen();
}

/**
 * The server as a command: `kube-windows-language-server ARGS` (dist/server.js, the package's bin) or
 * `kube-windows lsp ARGS` (the CLI loads this bundle). Serves over the transport the arguments name
 * (vscode-languageserver reads it from process.argv), or prints the help, the version or a usage
 * error and sets the exit code.
 */
export function runLanguageServer(args: readonly string[], name?: string): void {
  const invocation = languageServerInvocation(args, name);
  if (!invocation.serve) {
    if (invocation.stdout) process.stdout.write(invocation.stdout);
    if (invocation.stderr) process.stderr.write(invocation.stderr);
    process.exitCode = invocation.code;
    return;
  }
  process.on('uncaughtException', (err) => process.stderr.write(`kube-windows server: ${err.message}\n`));
  startServer(createConnection(ProposedFeatures.all));
}

if (require.main === module) runLanguageServer(process.argv.slice(2));
