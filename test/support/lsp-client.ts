// A real LSP client for tests: spawns the bundled dist/server.js over stdio and speaks the
// protocol with vscode-languageserver-protocol, as an editor would.
import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import {
  createProtocolConnection,
  StreamMessageReader,
  StreamMessageWriter,
  PublishDiagnosticsNotification,
  InitializeRequest,
  InitializedNotification,
  DidOpenTextDocumentNotification,
  DidChangeTextDocumentNotification,
  DidCloseTextDocumentNotification,
  LogMessageNotification,
  ConfigurationRequest,
  ShutdownRequest,
  ExitNotification,
  type ClientCapabilities,
  type Diagnostic,
  type ProtocolConnection,
  type TextDocumentContentChangeEvent,
} from 'vscode-languageserver-protocol/node';
import { NotificationType } from 'vscode-languageserver-protocol';

export const SERVER = resolve(__dirname, '..', '..', '..', 'dist', 'server.js');

export const StatusNotification = new NotificationType<{
  uri: string;
  workloads: number;
  windowsWorkloads: number;
  findings: number;
  errors: number;
  skipped?: string;
}>('kubeWindows/status');

interface Published {
  uri: string;
  version?: number;
  diagnostics: Diagnostic[];
}

export interface ClientOptions {
  initializationOptions?: unknown;
  /** Added to the server's environment. */
  env?: Record<string, string>;
  capabilities?: ClientCapabilities;
  /** Answer to workspace/configuration for section kubeWindows (enables the capability). */
  configuration?: () => unknown;
}

export class TestClient {
  readonly proc: ChildProcess;
  readonly conn: ProtocolConnection;
  readonly logs: string[] = [];
  readonly statuses: { uri: string; findings: number; windowsWorkloads: number; skipped?: string }[] = [];
  private published: Published[] = [];
  private waiters: { match: (p: Published) => boolean; resolve: (p: Published) => void }[] = [];
  private versions = new Map<string, number>();
  stderr = '';

  constructor(private readonly options: ClientOptions = {}) {
    this.proc = spawn(process.execPath, [SERVER, '--stdio'], {
      stdio: ['pipe', 'pipe', 'pipe'],
      ...(options.env ? { env: { ...process.env, ...options.env } } : {}),
    });
    this.proc.stderr!.on('data', (d) => (this.stderr += String(d)));
    this.conn = createProtocolConnection(
      new StreamMessageReader(this.proc.stdout!),
      new StreamMessageWriter(this.proc.stdin!),
    );
    this.conn.onNotification(PublishDiagnosticsNotification.type, (p) => {
      const entry = { uri: p.uri, version: p.version, diagnostics: p.diagnostics };
      this.published.push(entry);
      this.waiters = this.waiters.filter((w) => {
        if (!w.match(entry)) return true;
        w.resolve(entry);
        return false;
      });
    });
    this.conn.onNotification(LogMessageNotification.type, (p) => {
      this.logs.push(p.message);
    });
    this.conn.onNotification(StatusNotification, (p) => {
      this.statuses.push(p);
    });
    if (options.configuration) {
      const answer = options.configuration;
      this.conn.onRequest(ConfigurationRequest.type, (params) => params.items.map(() => answer()));
    }
    this.conn.onRequest('client/registerCapability', () => null);
    this.conn.onRequest('workspace/diagnostic/refresh', () => null);
    this.conn.listen();
  }

  async initialize(): Promise<void> {
    const capabilities: ClientCapabilities = {
      ...(this.options.capabilities ?? {}),
      // What the options say about the workspace wins over what a configuration answer implies.
      workspace: {
        ...(this.options.configuration
          ? { configuration: true, didChangeConfiguration: { dynamicRegistration: true } }
          : {}),
        ...(this.options.capabilities?.workspace ?? {}),
      },
    };
    await this.conn.sendRequest(InitializeRequest.type, {
      processId: process.pid,
      rootUri: null,
      capabilities,
      // Given as undefined: none sent, as many clients do.
      initializationOptions:
        'initializationOptions' in this.options ? this.options.initializationOptions : { debounceMs: 0 },
    });
    await this.conn.sendNotification(InitializedNotification.type, {});
  }

  /** Every diagnostics notification published for `uri` so far, in order. */
  publishedFor(uri: string): Published[] {
    return this.published.filter((p) => p.uri === uri);
  }

  /** The next diagnostics published for `uri` (at `version`, when given). */
  diagnostics(uri: string, version?: number, timeoutMs = 15_000): Promise<Published> {
    const match = (p: Published) => p.uri === uri && (version === undefined || p.version === version);
    const seen = [...this.published].reverse().find(match);
    if (seen && version !== undefined) return Promise.resolve(seen);
    return new Promise((resolvePromise, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no diagnostics for ${uri} v${version} within ${timeoutMs} ms; stderr: ${this.stderr}`)),
        timeoutMs,
      );
      this.waiters.push({ match, resolve: (p) => (clearTimeout(timer), resolvePromise(p)) });
    });
  }

  /** Opens a document; `version` above 1 reopens one without reusing a version already published for it. */
  async open(uri: string, text: string, languageId = 'yaml', version = 1): Promise<number> {
    this.versions.set(uri, version);
    await this.conn.sendNotification(DidOpenTextDocumentNotification.type, {
      textDocument: { uri, languageId, version, text },
    });
    return version;
  }

  async change(uri: string, changes: TextDocumentContentChangeEvent[]): Promise<number> {
    const version = (this.versions.get(uri) ?? 1) + 1;
    this.versions.set(uri, version);
    await this.conn.sendNotification(DidChangeTextDocumentNotification.type, {
      textDocument: { uri, version },
      contentChanges: changes,
    });
    return version;
  }

  async close(uri: string): Promise<void> {
    await this.conn.sendNotification(DidCloseTextDocumentNotification.type, { textDocument: { uri } });
  }

  alive(): boolean {
    return this.proc.exitCode === null && !this.proc.killed;
  }

  async dispose(): Promise<void> {
    try {
      await Promise.race([this.conn.sendRequest(ShutdownRequest.type), new Promise((r) => setTimeout(r, 2000))]);
      await this.conn.sendNotification(ExitNotification.type);
    } catch {
      // the server may already be gone
    }
    this.conn.dispose();
    if (this.proc.exitCode === null) this.proc.kill();
  }
}
