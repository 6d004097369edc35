// Read-only text documents of the pod and node actions (Describe, events, logs): a content
// provider on the `kube-windows-text` scheme, one document per name; showing a name again replaces
// its text (an open document shows the new one).
import * as vscode from 'vscode';

const TEXT_SCHEME = 'kube-windows-text';

export class ReadOnlyDocs implements vscode.TextDocumentContentProvider {
  private readonly texts = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  static register(context: vscode.ExtensionContext): ReadOnlyDocs {
    const docs = new ReadOnlyDocs();
    context.subscriptions.push(vscode.workspace.registerTextDocumentContentProvider(TEXT_SCHEME, docs), docs.changed);
    return docs;
  }

  /** The document's address for a name such as `describe/ns/pod` (the last part is its title). */
  private uri(name: string): vscode.Uri {
    return vscode.Uri.parse(`${TEXT_SCHEME}:/${name.split('/').map(encodeURIComponent).join('/')}`);
  }

  /** Sets the text of a name (firing a change for an open document) and shows it. */
  async show(name: string, text: string, language = 'plaintext'): Promise<vscode.Uri> {
    const uri = this.uri(name);
    this.set(uri, text);
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.languages.setTextDocumentLanguage(doc, language);
    await vscode.window.showTextDocument(doc, { preview: false });
    return uri;
  }

  private set(uri: vscode.Uri, text: string): void {
    const key = uri.toString();
    const again = this.texts.has(key);
    this.texts.set(key, text);
    if (again) this.changed.fire(uri);
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? '(no longer available: run the command again)\n';
  }
}
