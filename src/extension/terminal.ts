// The node terminal: a VS Code Pseudoterminal over an InteractiveSession (an SSH shell channel, or
// PowerShell exec'd into a HostProcess pod; src/remote/interactive.ts, src/cluster/pod-shell.ts).
// Bytes pass through untouched both ways (the remote side runs the pty); what this adds is the
// lifecycle: connecting lines, size forwarding, and a clear last line when the link drops.
import * as vscode from 'vscode';
import type { InteractiveSession, SessionEnd } from '../remote/interactive';

export interface StartIo {
  /** The terminal size at the moment (updated until the session exists). */
  size: { cols: number; rows: number };
  signal: AbortSignal;
  /** Writes one line of our own (not remote output) to the terminal. */
  print(line: string): void;
}

/** Opens the session (asking questions, falling back...); undefined = the user cancelled. */
export type SessionStarter = (io: StartIo) => Promise<InteractiveSession | undefined>;

const DIM = (t: string) => `\x1b[2m${t}\x1b[0m`;
const RED = (t: string) => `\x1b[31m${t}\x1b[0m`;
const PRESS_ANY_KEY = 'Press any key to close this terminal.';

export class SessionPty implements vscode.Pseudoterminal {
  private readonly writeEmitter = new vscode.EventEmitter<string>();
  private readonly closeEmitter = new vscode.EventEmitter<number | void>();
  readonly onDidWrite = this.writeEmitter.event;
  readonly onDidClose = this.closeEmitter.event;
  private readonly ctl = new AbortController();
  private readonly size = { cols: 80, rows: 24 };
  private session: InteractiveSession | undefined;
  /** Keys typed while connecting: sent once the shell is there (a user typing ahead). */
  private pending = '';
  private state: 'idle' | 'starting' | 'open' | 'ended' | 'closed' = 'idle';
  /** Resolves when the session is open or the start ended (for tests and callers that wait). */
  readonly ready: Promise<InteractiveSession | undefined>;
  private settleReady!: (s: InteractiveSession | undefined) => void;

  constructor(private readonly start: SessionStarter) {
    this.ready = new Promise((r) => (this.settleReady = r));
  }

  open(initialDimensions: vscode.TerminalDimensions | undefined): void {
    if (initialDimensions) this.setSize(initialDimensions);
    this.state = 'starting';
    void this.run();
  }

  private print = (line: string): void => this.writeEmitter.fire(`${line.replace(/\r?\n/g, '\r\n')}\r\n`);

  private setSize(d: vscode.TerminalDimensions): void {
    this.size.cols = d.columns;
    this.size.rows = d.rows;
  }

  private async run(): Promise<void> {
    let session: InteractiveSession | undefined;
    try {
      session = await this.start({ size: this.size, signal: this.ctl.signal, print: this.print });
    } catch (err) {
      if (this.state === 'closed') return this.settleReady(undefined);
      const message = err instanceof Error ? err.message : String(err);
      this.print(RED(`[kube-windows] ${message}`));
      this.endWith(undefined);
      return;
    }
    if (this.state === 'closed') {
      session?.close();
      return this.settleReady(undefined);
    }
    if (!session) {
      // The user cancelled a question: nothing to show.
      this.state = 'closed';
      this.settleReady(undefined);
      this.closeEmitter.fire();
      return;
    }
    this.session = session;
    this.state = 'open';
    session.onData((text) => this.writeEmitter.fire(text));
    session.onEnd((end) => this.ended(end));
    // The size may have changed while connecting.
    session.resize(this.size.cols, this.size.rows);
    if (this.pending) session.write(this.pending);
    this.pending = '';
    this.settleReady(session);
  }

  private ended(end: SessionEnd): void {
    if (this.state === 'closed') return;
    if (end.lost) {
      this.print(`\r\n${RED(`[kube-windows] ${end.lost}; the session has ended.`)}`);
      this.endWith(undefined);
      return;
    }
    this.state = 'closed';
    this.closeEmitter.fire(end.exitCode ? end.exitCode : undefined);
  }

  /** Keeps the terminal open with the last line readable; the next key closes it. */
  private endWith(session: InteractiveSession | undefined): void {
    this.state = 'ended';
    this.print(DIM(PRESS_ANY_KEY));
    this.settleReady(session);
  }

  handleInput(data: string): void {
    switch (this.state) {
      case 'open':
        this.session?.write(data);
        break;
      case 'starting':
        // Ctrl+C while connecting stops the attempt.
        if (data === '\x03') this.ctl.abort(new Error('cancelled'));
        else this.pending += data;
        break;
      case 'ended':
        this.state = 'closed';
        this.closeEmitter.fire();
        break;
      default:
        break;
    }
  }

  setDimensions(d: vscode.TerminalDimensions): void {
    this.setSize(d);
    if (this.state === 'open') this.session?.resize(d.columns, d.rows);
  }

  /** The user closed the terminal: end the channel (a pod session deletes its pod). */
  close(): void {
    const was = this.state;
    this.state = 'closed';
    this.ctl.abort(new Error('the terminal was closed'));
    if (was === 'open') this.session?.close();
  }
}
