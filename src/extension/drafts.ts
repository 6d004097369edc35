// Generated manifests open as untitled documents with a real name (the tab says `windows-machineset-winworker.yaml`,
// not `Untitled-1`), in the language their name says, ready to edit and save.
import * as vscode from 'vscode';

/** Opens `fileName` (a name taken by an open document gets a number) as an untitled document holding `content`. */
export async function openDraft(fileName: string, content: string, language = 'yaml'): Promise<vscode.TextDocument> {
  const dot = fileName.lastIndexOf('.');
  const [stem, ext] = dot > 0 ? [fileName.slice(0, dot), fileName.slice(dot)] : [fileName, ''];
  const open = new Set(vscode.workspace.textDocuments.map((d) => d.uri.toString()));
  let uri = vscode.Uri.parse(`untitled:${stem}${ext}`);
  for (let i = 2; open.has(uri.toString()); i++) uri = vscode.Uri.parse(`untitled:${stem}-${i}${ext}`);
  const doc = await vscode.workspace.openTextDocument(uri);
  if (doc.languageId !== language) await vscode.languages.setTextDocumentLanguage(doc, language);
  const editor = await vscode.window.showTextDocument(doc, { preview: false });
  await editor.edit((b) => b.insert(new vscode.Position(0, 0), content));
  return editor.document;
}

/** A file name from an object's name: what a file system and a tab title take. */
export const draftName = (prefix: string, name: string, ext = 'yaml'): string =>
  `${prefix}-${name.replace(/[^A-Za-z0-9._-]+/g, '-')}.${ext}`;
