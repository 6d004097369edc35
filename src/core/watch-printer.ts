// What `kube-windows nodes --watch` and `pods --watch` print, as kubectl's `get -w` prints it: the table,
// then one row per change (aligned with the table; an EVENT column first with --output-watch-events);
// -o name one line per change; -o json|yaml each object (a watch event {type, object} with
// --output-watch-events), YAML documents separated by `---`. Pure: it is given objects and returns text.
//
// Unlike kubectl, the watch outlives a failure: after a reconnect the caller lists again and `sync`
// prints only what differs from what was printed (an object gone while the server was away is DELETED, a
// new one ADDED, a changed one MODIFIED): an object that did not change is never printed twice. The same
// holds for a change that leaves its line as it was (a node's heartbeat): only what is seen is compared,
// ages aside.
import { writeYaml } from './manifest/yaml-writer';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';
export type WatchFormat = 'table' | 'name' | 'json' | 'yaml';

/** How one kind of object is listed (core/node-listing.ts, core/pod-listing.ts). */
export interface WatchListing<T> {
  /** The object's identity: namespace/name. */
  key(o: T): string;
  /** The table's rows for these objects, header first. */
  table(objects: readonly T[], now: number): string[][];
  /** The -o name line. */
  name(o: T): string;
  /** The object as -o json|yaml prints it. */
  printed(o: T): Record<string, unknown>;
}

/** Space after a column, as kubectl's tab writer pads (core/node-listing.ts alignColumns). */
const GAP = 3;
/** A time-dependent part of a cell: the AGE column, RESTARTS' "(5m ago)". */
const AGO = / \([^)]* ago\)$/;

export class WatchPrinter<T> {
  /** Per object: the object last printed and what was seen of it (its line or document, ages aside). */
  private readonly shown = new Map<string, { object: T; seen: string }>();
  private widths: number[] = [];
  private headerPrinted = false;
  private printedObjects = 0;

  constructor(
    private readonly listing: WatchListing<T>,
    private readonly format: WatchFormat,
    private readonly withEvents = false,
  ) {}

  /** The first list: the whole table (or every object); empty when there is none (the header waits for a row). */
  start(objects: readonly T[], now: number): string {
    return this.print(
      this.sorted(objects).map((o) => ({ type: 'ADDED' as const, object: o })),
      now,
    );
  }

  /** A list made again (after a reconnect or 410 Gone): what differs from what was printed, nothing else. */
  sync(objects: readonly T[], now: number): string {
    const changes: { type: WatchEventType; object: T }[] = [];
    const present = new Set<string>();
    for (const o of this.sorted(objects)) {
      const key = this.listing.key(o);
      present.add(key);
      const before = this.shown.get(key);
      if (!before) changes.push({ type: 'ADDED', object: o });
      else if (before.seen !== this.seen(o, now)) changes.push({ type: 'MODIFIED', object: o });
    }
    for (const [key, { object }] of this.shown) if (!present.has(key)) changes.push({ type: 'DELETED', object });
    return this.print(changes, now);
  }

  /** One watch event: its line, or nothing when what it shows is what was printed last. */
  event(type: WatchEventType, object: T, now: number): string {
    const before = this.shown.get(this.listing.key(object));
    if (type === 'DELETED' ? !before : before?.seen === this.seen(object, now)) return '';
    return this.print([{ type, object }], now);
  }

  /** In the server's order (keys as bytes), which kubectl keeps. */
  private sorted(objects: readonly T[]): T[] {
    const key = (o: T) => this.listing.key(o);
    return [...objects].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  }

  private seen(o: T, now: number): string {
    switch (this.format) {
      case 'table': {
        const [header = [], row = []] = this.listing.table([o], now);
        return row
          .filter((_, i) => header[i] !== 'AGE')
          .map((cell) => cell.replace(AGO, ''))
          .join('\t');
      }
      case 'name':
        return this.listing.name(o);
      default: {
        const printed = this.listing.printed(o) as { metadata?: Record<string, unknown> };
        const { resourceVersion: _rv, ...metadata } = printed.metadata ?? {};
        return JSON.stringify({ ...printed, metadata });
      }
    }
  }

  private print(changes: readonly { type: WatchEventType; object: T }[], now: number): string {
    let text = '';
    const rows: string[][] = [];
    for (const { type, object } of changes) {
      const key = this.listing.key(object);
      if (type === 'DELETED') this.shown.delete(key);
      else this.shown.set(key, { object, seen: this.seen(object, now) });
      if (this.format === 'table') {
        const [header = [], row = []] = this.listing.table([object], now);
        if (!this.headerPrinted) rows.push(this.withEvents ? ['EVENT', ...header] : header);
        this.headerPrinted = true;
        rows.push(this.withEvents ? [type, ...row] : row);
      } else if (this.format === 'name') {
        text += `${this.withEvents ? `${type} ` : ''}${this.listing.name(object)}\n`;
      } else {
        const printed = this.listing.printed(object);
        const value = this.withEvents ? { type, object: printed } : printed;
        if (this.format === 'json') text += `${JSON.stringify(value, null, 4)}\n`;
        else text += `${this.printedObjects > 0 ? '---\n' : ''}${writeYaml(value)}`;
        this.printedObjects++;
      }
    }
    return this.format === 'table' ? this.aligned(rows) : text;
  }

  /** Rows padded to the widest cell of each column seen so far, the last column bare. */
  private aligned(rows: readonly string[][]): string {
    for (const row of rows) row.forEach((cell, i) => (this.widths[i] = Math.max(this.widths[i] ?? 0, cell.length)));
    return rows
      .map(
        (row) =>
          `${row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd((this.widths[i] ?? 0) + GAP))).join('')}\n`,
      )
      .join('');
  }
}
