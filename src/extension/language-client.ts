// The language client's lifecycle: start, stop, restart, crash handling, and the custom
// notifications of the server contract (see protocol.ts). VS Code glue only: no rule logic.
import * as vscode from 'vscode';
import { existsSync } from 'node:fs';
import {
  CloseAction,
  ErrorAction,
  LanguageClient,
  RevealOutputChannelOn,
  State,
  TransportKind,
  type CloseHandlerResult,
  type ErrorHandlerResult,
  type LanguageClientOptions,
  type ServerOptions,
} from 'vscode-languageclient/node';
import {
  CLUSTER_SNAPSHOT_NOTIFICATION,
  DOCUMENT_SELECTOR,
  SECTION,
  STATUS_NOTIFICATION,
  isStatusParams,
  type ClusterSnapshot,
  type StatusParams,
} from '../shared/protocol';
import { serverSettings } from './config';
import type { ServerState } from './status-text';
import { QUICK_FIX_APPLIED } from './walkthrough';

const START_TIMEOUT_MS = 30_000;
/** After a crash the server restarts on its own, at most this many times in RESTART_WINDOW_MS. */
const MAX_RESTARTS = 4;
const RESTART_WINDOW_MS = 3 * 60_000;

/** The first line of an error's message: what a user sees. Stacks go to the log only. */
function reason(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  const line = text.split('\n', 1)[0].trim();
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

/** Why a start failed, in words a user can act on. */
function startFailure(error: unknown): string {
  const text = reason(error);
  // What the client library says when the server process dies before answering `initialize`.
  if (/connection got disposed|connection is (closed|disposed)/i.test(text))
    return 'its process exited while starting; the log shows its output';
  return text;
}

/**
 * vscode-languageclient shows its own notifications for some failures, with stack traces. This
 * subclass keeps every library message in the log and hands the ones it would force onto the
 * screen to the controller, which shows one clear message instead.
 */
class KubeWindowsClient extends LanguageClient {
  /** Set when the controller has let go of this client: its late failures are not news. */
  retired = false;
  /** Whether the server ever reached Running (a crash at start is not retried automatically). */
  ran = false;
  onForcedError: ((message: string) => void) | undefined;

  override error(message: string, data?: unknown, showNotification: boolean | 'force' = true): void {
    super.error(message, data, false);
    if (showNotification === 'force' && !this.retired) this.onForcedError?.(message);
  }
}

let latestSnapshot: ClusterSnapshot | null | undefined;
let activeController: ServerController | undefined;

/**
 * Hands the server the facts of the cluster in use (from the cluster explorer), or null to forget
 * them. The latest snapshot is kept and sent again whenever the server (re)starts.
 */
export function sendClusterSnapshot(snapshot: ClusterSnapshot | null): Promise<void> {
  latestSnapshot = snapshot;
  return activeController?.pushSnapshot() ?? Promise.resolve();
}

function setActive(controller: ServerController | undefined): void {
  activeController = controller;
}

export class ServerController implements vscode.Disposable {
  private client: KubeWindowsClient | undefined;
  private clientDisposables: vscode.Disposable[] = [];
  private enabled = false;
  private failed = false;
  private inStart = false;
  private notifying = false;
  private restarts: number[] = [];
  /** Start/stop operations run one after another, so quick toggles of the setting cannot interleave. */
  private queue: Promise<void> = Promise.resolve();

  private readonly stateEmitter = new vscode.EventEmitter<ServerState>();
  private readonly statusEmitter = new vscode.EventEmitter<{ uri: vscode.Uri; status: StatusParams }>();
  /** Fires whenever `state` may have changed. */
  readonly onDidChangeState = this.stateEmitter.event;
  /** Fires for each `kubeWindows/status` notification. */
  readonly onDidReceiveStatus = this.statusEmitter.event;

  constructor(
    private readonly serverModule: string,
    private readonly log: vscode.LogOutputChannel,
  ) {
    setActive(this);
  }

  get state(): ServerState {
    if (!this.enabled) return 'disabled';
    if (this.failed) return 'failed';
    switch (this.client?.state) {
      case State.Running:
        return 'running';
      case State.Starting:
        return 'starting';
      default:
        return 'stopped';
    }
  }

  get isEnabled(): boolean {
    return this.enabled;
  }

  /** Applies `kubeWindows.enable`: starts the server when it turns true, stops it when it turns false. */
  setEnabled(enabled: boolean): Promise<void> {
    return this.enqueue(async () => {
      if (enabled === this.enabled && (enabled ? this.client !== undefined : this.client === undefined)) return;
      this.enabled = enabled;
      if (enabled) {
        await this.startClient();
      } else {
        this.log.info('kubeWindows.enable is false: stopping the language server.');
        await this.stopClient();
      }
    });
  }

  /** Stops the server (if it runs) and starts a fresh one. */
  restart(): Promise<void> {
    return this.enqueue(async () => {
      this.log.info('Restarting the language server.');
      await this.stopClient();
      if (this.enabled) await this.startClient();
    });
  }

  /** Sends the latest cluster snapshot to a running server. */
  async pushSnapshot(): Promise<void> {
    const client = this.client;
    if (client === undefined || client.state !== State.Running || latestSnapshot === undefined) return;
    try {
      await client.sendNotification(CLUSTER_SNAPSHOT_NOTIFICATION, latestSnapshot);
    } catch (error) {
      this.log.warn(`Could not send the cluster snapshot to the language server: ${reason(error)}`);
    }
  }

  dispose(): Promise<void> {
    if (activeController === this) setActive(undefined);
    const done = this.enqueue(() => this.stopClient());
    return done.finally(() => {
      this.stateEmitter.dispose();
      this.statusEmitter.dispose();
    });
  }

  private enqueue(op: () => Promise<void>): Promise<void> {
    const next = this.queue.then(op, op);
    this.queue = next.catch(() => undefined);
    return next;
  }

  private fireState(): void {
    this.stateEmitter.fire(this.state);
  }

  private async startClient(): Promise<void> {
    this.failed = false;
    if (!existsSync(this.serverModule)) {
      this.reportFailure(
        `is missing from the extension (${this.serverModule})`,
        'Reinstall the kube-windows extension.',
      );
      return;
    }
    let client: KubeWindowsClient;
    try {
      client = this.createClient();
    } catch (error) {
      this.log.error(
        `The language client could not be created: ${error instanceof Error && error.stack ? error.stack : String(error)}`,
      );
      this.reportFailure(`could not start (${reason(error)})`);
      return;
    }
    this.client = client;
    this.inStart = true;
    this.fireState();
    let timer: NodeJS.Timeout | undefined;
    try {
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no answer within ${START_TIMEOUT_MS / 1000} seconds`)),
          START_TIMEOUT_MS,
        );
      });
      await Promise.race([client.start(), timeout]);
      this.log.info('The language server is running.');
    } catch (error) {
      this.log.error(
        `The language server could not start: ${error instanceof Error && error.stack ? error.stack : String(error)}`,
      );
      await this.retire(client);
      this.reportFailure(`could not start (${startFailure(error)})`);
    } finally {
      clearTimeout(timer);
      this.inStart = false;
      this.fireState();
    }
  }

  private async stopClient(): Promise<void> {
    const client = this.client;
    if (client !== undefined) {
      await this.retire(client);
      this.log.info('The language server is stopped.');
    }
    this.fireState();
  }

  /** Lets go of a client: no more events from it, and its server process ends. */
  private async retire(client: KubeWindowsClient): Promise<void> {
    client.retired = true;
    if (this.client === client) {
      this.client = undefined;
      for (const d of this.clientDisposables) d.dispose();
      this.clientDisposables = [];
    }
    try {
      await client.dispose(2000);
    } catch {
      // A client that never got running cannot shut down cleanly; dispose still ends its process.
    }
  }

  private createClient(): KubeWindowsClient {
    const serverOptions: ServerOptions = {
      run: { module: this.serverModule, transport: TransportKind.ipc },
      debug: {
        module: this.serverModule,
        transport: TransportKind.ipc,
        options: { execArgv: ['--nolazy', '--inspect=6019'] },
      },
    };
    const settings = serverSettings();
    this.log.info(`Starting the language server with settings ${JSON.stringify(settings)}`);
    const clientOptions: LanguageClientOptions = {
      documentSelector: DOCUMENT_SELECTOR,
      initializationOptions: () => serverSettings(),
      middleware: {
        provideCodeActions: async (document, range, context, token, next) =>
          markApplied(await next(document, range, context, token)),
      },
      synchronize: { configurationSection: SECTION },
      outputChannel: this.log,
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      progressOnInitialization: true,
      initializationFailedHandler: (error) => {
        this.log.error(`The language server failed to initialize: ${reason(error)}`);
        return false;
      },
      errorHandler: {
        error: (_error, _message, count): ErrorHandlerResult => ({
          action: count !== undefined && count <= 3 ? ErrorAction.Continue : ErrorAction.Shutdown,
          handled: true,
        }),
        closed: () => this.onClosed(client),
      },
    };
    const client = new KubeWindowsClient(SECTION, 'kube-windows', serverOptions, clientOptions);
    client.onForcedError = (message) => {
      // During our own start() the controller reports the failure itself, with a better reason.
      if (!this.inStart) this.reportFailure(`failed (${reason(message)})`);
    };
    this.clientDisposables.push(
      client.onDidChangeState((e) => {
        if (client.retired) return;
        if (e.newState === State.Running) {
          client.ran = true;
          this.failed = false;
          void this.pushSnapshot();
        }
        this.fireState();
      }),
      client.onNotification(STATUS_NOTIFICATION, (params: unknown) => {
        if (client.retired) return;
        if (!isStatusParams(params)) {
          this.log.warn(`Ignored a malformed ${STATUS_NOTIFICATION} notification: ${JSON.stringify(params)}`);
          return;
        }
        this.statusEmitter.fire({ uri: client.protocol2CodeConverter.asUri(params.uri), status: params });
      }),
    );
    return client;
  }

  /** The connection to the server closed without a stop from us: restart a few times, then give up. */
  private onClosed(client: KubeWindowsClient): CloseHandlerResult {
    if (client.retired || !client.ran) {
      // A server that dies while starting is reported by startClient; retrying would only loop.
      return { action: CloseAction.DoNotRestart, message: 'The language server exited while starting.', handled: true };
    }
    const now = Date.now();
    this.restarts = this.restarts.filter((t) => now - t < RESTART_WINDOW_MS);
    this.restarts.push(now);
    if (this.restarts.length <= MAX_RESTARTS) {
      return {
        action: CloseAction.Restart,
        message: 'The language server stopped unexpectedly; restarting it.',
        handled: true,
      };
    }
    this.restarts = [];
    this.reportFailure(
      `stopped unexpectedly ${MAX_RESTARTS + 1} times in ${RESTART_WINDOW_MS / 60_000} minutes and was not restarted again`,
    );
    return {
      action: CloseAction.DoNotRestart,
      message: 'The language server crashed repeatedly; it will not be restarted.',
      handled: true,
    };
  }

  /** One clear message (at most one on screen at a time) with a way to the log; details stay in the log. */
  private reportFailure(
    what: string,
    todo = 'Run "kube-windows: Restart language server" once the log shows the cause.',
  ): void {
    this.failed = true;
    this.fireState();
    const text = `kube-windows: the language server ${what}. Windows checks of YAML files are off until it runs. ${todo}`;
    this.log.error(text);
    if (this.notifying) return;
    this.notifying = true;
    void vscode.window.showErrorMessage(text, 'Show log').then((choice) => {
      this.notifying = false;
      if (choice === 'Show log') this.log.show(true);
    });
  }
}

/**
 * Our code actions carry a command VS Code runs after applying their edit, so the walkthrough's
 * quick-fix step completes (it never replaces a command the server set).
 */
function markApplied(
  actions: (vscode.Command | vscode.CodeAction)[] | null | undefined,
): (vscode.Command | vscode.CodeAction)[] | null | undefined {
  for (const action of actions ?? []) {
    if (action instanceof vscode.CodeAction && !action.command)
      action.command = { command: QUICK_FIX_APPLIED, title: 'Quick fix applied' };
  }
  return actions;
}
