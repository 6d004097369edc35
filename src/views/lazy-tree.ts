// VS Code's lazy tree protocol, knowing nothing of what the items stand for: items by id, the parent
// of each, a resolver per expandable item, and the timing that keeps VS Code's registry consistent.
//
// Identity and timing follow what VS Code's tree needs (its extension host registers each child by id
// after our answer, and throws "Element with id … is already registered" when an id comes back while it
// is still registered from an answer it could no longer clear):
// - one item object per id, refilled in place, so the same node is the same element;
// - an answer that takes longer than `loadingAfterMs` is a loading row at once, and the real children
//   follow with a change event for that parent (loading resolves, never races);
// - a change event for an item waits while the view is loading children at or below it (answers under
//   way, or given less than SETTLE_MS ago: the view asks for expanded items level by level, and a
//   refresh in between leaves them empty), and is fired for the item that changed, not the whole tree;
// - an answer overtaken by a newer ask at or above it ends empty (the view has forgotten where it
//   would go);
// - an item a parent's answer no longer has is forgotten, with everything below it (the view unregisters
//   it then): kept, a row of a pod long deleted would hold its parts (the session it was read through)
//   for as long as the view is open.
import { within } from '../core/delay';
import { Emitter } from './emitter';

/** What the lazy tree needs of its items: an id (the view's handle). */
export interface Identified {
  id: string;
}

export interface LazyTreeSource<T extends Identified> {
  /** The roots (the tree remembers them). */
  roots(): T[];
  /** The row that stands in for children still being read (the parent's change event replaces it). */
  loading(id: string, parent: T): T;
  /** The row of a resolver that threw (resolvers return rows for the failures they expect). */
  failed(id: string, err: unknown): T;
  /** Called for each item handed out, with its parent (undefined for a root), before it is kept. */
  adopt?(item: T, parent: T | undefined): void;
  /** How long an answer may take before a loading row stands in for it. Default 150 ms. */
  loadingAfterMs?: number;
}

/**
 * VS Code refreshes an item at once on a first change event and batches further ones for 200 ms (a
 * leading debounce): within this window after an event, a refresh of that item is still to come.
 */
const REFRESH_WINDOW_MS = 400;
/** Quiet time after an answer before a change at or above it fires (the view asks level by level). */
const SETTLE_MS = 200;
/** Children that arrived for a parent the view did not ask again within this time are asked afresh. */
const ARRIVED_TTL_MS = 5_000;

/** One answer under way; superseded when the view asked again at or above it meanwhile. */
interface Ask {
  superseded: boolean;
}

export class LazyTree<T extends Identified> {
  /** The last items handed out, by id (a refresh of one item re-fills the same object). */
  private readonly items = new Map<string, T>();
  private readonly resolvers = new Map<string, () => Promise<T[]>>();
  /** The parent of each item handed out (undefined: a root), to know what lies below an item. */
  private readonly parents = new Map<string, string | undefined>();
  /** The ids handed out under each parent (undefined: the roots) since its last complete answer. */
  private readonly childIds = new Map<string | undefined, Set<string>>();
  /** Children being asked, by parent id: the answers under way (more than one when the view asked again). */
  private readonly asking = new Map<string, Set<Ask>>();
  /** Changes held back while children at or below them are being asked. */
  private readonly held = new Set<string>();
  /** Children that arrived after a loading row was shown, kept for the next ask (with their time). */
  private readonly arrived = new Map<string, { nodes: T[]; at: number }>();
  /** When each item's change was last fired: the tree refreshes an item shortly after its event. */
  private readonly firedAt = new Map<string, number>();
  /** When the children of each item were last answered (registered by the view). */
  private readonly answeredAt = new Map<string, number>();
  private releaseTimer: NodeJS.Timeout | undefined;
  private readonly changeEmitter = new Emitter<string | undefined>();
  private disposed = false;

  /** Fires with the id of the item that changed, or undefined when the whole tree did. */
  readonly onDidChange = this.changeEmitter.event;

  constructor(private readonly source: LazyTreeSource<T>) {}

  /** The item last handed out under this id. */
  item(id: string): T | undefined {
    return this.items.get(id);
  }

  /** The item an item was handed out under (undefined for the roots), as VS Code's reveal needs it. */
  parentOf(item: T): T | undefined {
    const id = this.parents.get(item.id);
    return id === undefined ? undefined : this.items.get(id);
  }

  /** How many items the tree holds (tests and the soak: it follows what the view shows, not what it ever showed). */
  get size(): number {
    return this.items.size;
  }

  /** Makes an item expandable: its children are what `resolve` answers when the view asks. */
  expandable(id: string, resolve: () => Promise<T[]>): void {
    this.resolvers.set(id, resolve);
  }

  /** Forgets every resolver and every answer kept for a later ask (the items stay, to be refilled). */
  reset(): void {
    this.resolvers.clear();
    this.arrived.clear();
  }

  /**
   * The children of an item (the roots without one). Answers within `loadingAfterMs`: what is not known
   * by then is a loading row, replaced through a change event of `parent` once it arrived.
   */
  async children(parent?: T): Promise<T[]> {
    // Asking for the children of an item (or the roots) makes the view forget what it registered below
    // it: an answer still under way there would register into what was forgotten, and the next ask of
    // the same ids would clash with it. Such answers end empty; the newer ask carries the children.
    this.supersede(parent?.id);
    if (!parent) return this.answer(this.source.roots());
    const id = parent.id;
    const arrived = this.arrived.get(id);
    this.arrived.delete(id);
    if (arrived && Date.now() - arrived.at < ARRIVED_TTL_MS) return this.answer(arrived.nodes, id);
    const resolve = this.resolvers.get(id);
    if (!resolve) return [];
    const ask: Ask = { superseded: false };
    const asks = this.asking.get(id) ?? new Set<Ask>();
    asks.add(ask);
    this.asking.set(id, asks);
    try {
      const pending = resolve().catch((err: unknown) => [this.source.failed(`${id}/error`, err)]);
      // Right after this item (or one above it) changed, the view is about to ask again: answer at once.
      const waitMs = this.refreshComing(id) ? 0 : (this.source.loadingAfterMs ?? 150);
      const answer = await within(pending, waitMs);
      if (ask.superseded) return [];
      if (answer) return this.answer(answer, id);
      void pending.then((nodes) => {
        if (this.disposed) return;
        this.arrived.set(id, { nodes, at: Date.now() });
        this.notify(id);
      });
      // The children shown before stay known until the real answer: it most likely has them again.
      return this.remember([this.source.loading(`${id}/loading`, parent)], id);
    } finally {
      // The view registers our answer in the microtasks that follow it: the ask ends after those, so
      // that a change held for it cannot refresh the parent before its children are registered.
      setTimeout(() => {
        asks.delete(ask);
        if (!asks.size && this.asking.get(id) === asks) this.asking.delete(id);
        this.answeredAt.set(id, Date.now());
        this.releaseHeld();
      }, 0);
    }
  }

  /**
   * Keeps items handed out under `parentId` (undefined: roots): an id seen before keeps its object,
   * refilled with the new fields. Answers the kept objects.
   */
  remember(nodes: T[], parentId?: string): T[] {
    const parent = parentId === undefined ? undefined : this.items.get(parentId);
    const ids = this.childIds.get(parentId) ?? new Set<string>();
    this.childIds.set(parentId, ids);
    for (const n of nodes) {
      this.source.adopt?.(n, parent);
      this.parents.set(n.id, parentId);
      ids.add(n.id);
      const old = this.items.get(n.id);
      if (old) {
        for (const key of Object.keys(old) as (keyof T)[]) delete old[key];
        Object.assign(old, n);
      } else this.items.set(n.id, n);
    }
    return nodes.map((n) => this.items.get(n.id) ?? n);
  }

  /**
   * A parent's complete answer (the roots without one): remembered, and what it had before and has no
   * more is forgotten with everything below it, unless it moved under another parent meanwhile.
   */
  private answer(nodes: T[], parentId?: string): T[] {
    const before = this.childIds.get(parentId);
    this.childIds.set(parentId, new Set());
    const kept = this.remember(nodes, parentId);
    const now = this.childIds.get(parentId);
    for (const id of before ?? []) if (!now?.has(id) && this.parents.get(id) === parentId) this.forget(id);
    return kept;
  }

  private forget(id: string): void {
    this.items.delete(id);
    this.parents.delete(id);
    this.resolvers.delete(id);
    this.arrived.delete(id);
    this.held.delete(id);
    this.firedAt.delete(id);
    this.answeredAt.delete(id);
    const below = this.childIds.get(id);
    this.childIds.delete(id);
    for (const child of below ?? []) if (this.parents.get(child) === id) this.forget(child);
  }

  /**
   * Fires a change: for the whole tree at once (VS Code cancels every answer under way then); for one
   * item only when the view is not loading at or below it (no answer under way there, none in the last
   * SETTLE_MS: the view asks for the children of expanded items one level after the other, and a
   * refresh of the item in between would leave them without their children), else once it is quiet.
   */
  notify(id: string | undefined): void {
    if (this.disposed) return;
    if (id === undefined) {
      this.held.clear();
      this.changeEmitter.fire(undefined);
      return;
    }
    if (this.loadingAtOrBelow(id)) {
      this.held.add(id);
      this.scheduleRelease();
      return;
    }
    this.firedAt.set(id, Date.now());
    this.changeEmitter.fire(id);
  }

  dispose(): void {
    this.disposed = true;
    if (this.releaseTimer) clearTimeout(this.releaseTimer);
    this.changeEmitter.clear();
  }

  /** Marks the answers under way at or below `id` (all of them for the roots) as superseded. */
  private supersede(id: string | undefined): void {
    for (const [asked, asks] of this.asking) {
      if (id !== undefined && !this.isAtOrBelow(asked, id)) continue;
      for (const a of asks) a.superseded = true;
    }
  }

  private releaseHeld(): void {
    for (const id of [...this.held]) {
      if (this.loadingAtOrBelow(id)) continue;
      this.held.delete(id);
      this.notify(id);
    }
    if (this.held.size) this.scheduleRelease();
  }

  private scheduleRelease(): void {
    if (this.releaseTimer || this.disposed) return;
    this.releaseTimer = setTimeout(() => {
      this.releaseTimer = undefined;
      this.releaseHeld();
    }, SETTLE_MS);
    this.releaseTimer.unref?.();
  }

  private loadingAtOrBelow(id: string): boolean {
    for (const asked of this.asking.keys()) if (this.isAtOrBelow(asked, id)) return true;
    const now = Date.now();
    for (const [asked, at] of this.answeredAt) {
      if (now - at >= SETTLE_MS) this.answeredAt.delete(asked);
      else if (this.isAtOrBelow(asked, id)) return true;
    }
    return false;
  }

  /** Whether `id` is `ancestor` or lies below it. */
  private isAtOrBelow(id: string | undefined, ancestor: string): boolean {
    for (let at = id, hops = 0; at !== undefined && hops < 64; at = this.parents.get(at), hops++)
      if (at === ancestor) return true;
    return false;
  }

  /** Whether a change of this item or of one above it was fired so recently that the view has yet to act on it. */
  private refreshComing(id: string): boolean {
    const now = Date.now();
    for (let at: string | undefined = id, hops = 0; at !== undefined && hops < 64; at = this.parents.get(at), hops++) {
      const t = this.firedAt.get(at);
      if (t !== undefined && now - t < REFRESH_WINDOW_MS) return true;
    }
    return false;
  }
}
