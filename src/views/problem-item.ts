// The workload problems view's items: the shared view item, with the live object (and finding) each
// one stands for.
import type { ViewItem } from './item';

/** The object an item stands for: what the open command needs. */
export interface LiveObjectKey {
  kind: string;
  namespace?: string;
  name: string;
}

/** The problems view's item kinds (menus' viewItem when-clauses match these). */
export type ProblemContextValue = 'liveObject' | 'liveFinding' | 'error' | 'info';

/** Ids are stable across refreshes for the same object and finding. */
export interface ProblemNode extends ViewItem<ProblemContextValue> {
  /** Set on object and finding items. */
  object?: LiveObjectKey;
  /** Set on finding items: the index of the finding among its object's. */
  finding?: number;
}
