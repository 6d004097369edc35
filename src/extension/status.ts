// The language status item for YAML documents: what the server found in the active document
// (from `kubeWindows/status`), or the server's state when it is not running. Clicking opens the log.
import * as vscode from 'vscode';
import type { ServerController } from './language-client';
import { DOCUMENT_SELECTOR, type StatusParams } from '../shared/protocol';
import { describeStatus, type StatusView } from './status-text';

const SEVERITY: Record<StatusView['severity'], vscode.LanguageStatusSeverity> = {
  information: vscode.LanguageStatusSeverity.Information,
  warning: vscode.LanguageStatusSeverity.Warning,
  error: vscode.LanguageStatusSeverity.Error,
};

export class StatusPresenter implements vscode.Disposable {
  private readonly item: vscode.LanguageStatusItem;
  /** The last status per document URI (string form). */
  private readonly statuses = new Map<string, StatusParams>();
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly controller: ServerController,
    showLogCommand: string,
  ) {
    this.item = vscode.languages.createLanguageStatusItem('kubeWindows.status', DOCUMENT_SELECTOR);
    this.item.name = 'kube-windows';
    this.item.command = { title: 'Show log', command: showLogCommand, tooltip: 'Open the kube-windows log' };
    this.disposables.push(
      this.item,
      controller.onDidChangeState((state) => {
        if (state !== 'running' && state !== 'starting') this.statuses.clear();
        this.render();
      }),
      controller.onDidReceiveStatus(({ uri, status }) => {
        const key = uri.toString();
        this.statuses.set(key, status);
        if (key === vscode.window.activeTextEditor?.document.uri.toString()) this.render();
      }),
      vscode.window.onDidChangeActiveTextEditor(() => this.render()),
      vscode.workspace.onDidCloseTextDocument((doc) => this.statuses.delete(doc.uri.toString())),
    );
    this.render();
  }

  private render(): void {
    const doc = vscode.window.activeTextEditor?.document;
    const status = doc === undefined ? undefined : this.statuses.get(doc.uri.toString());
    const view = describeStatus(this.controller.state, status);
    this.item.text = view.text;
    this.item.detail = view.detail;
    this.item.severity = SEVERITY[view.severity];
    this.item.busy = view.busy;
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
    this.statuses.clear();
  }
}
