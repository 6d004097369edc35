// The views' change events, shaped like vscode.Event (subscribe, get a disposable) without VS Code.
type Listener<T> = (e: T) => void;

export class Emitter<T> {
  private listeners = new Set<Listener<T>>();
  readonly event = (l: Listener<T>): { dispose(): void } => {
    this.listeners.add(l);
    return { dispose: () => this.listeners.delete(l) };
  };
  fire(e: T): void {
    for (const l of [...this.listeners]) l(e);
  }
  clear(): void {
    this.listeners.clear();
  }
}
