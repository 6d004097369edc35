// How big a soak run is: the compressed day with KW_SOAK=day (`npm run soak`), else the
// same shape scaled down for `npm test` (under two minutes on a loaded 2-core machine); KW_SOAK_EDITS and
// KW_SOAK_REFRESHES resize a part. KW_SOAK_REPORT
// names a folder where each suite writes its figures as JSON, for scripts/soak.mjs to print.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Verdict } from './soak';

export const FULL_DAY = process.env.KW_SOAK === 'day';

export interface SoakSize {
  /** Language-server edits (didChange notifications) over all documents. */
  edits: number;
  documents: number;
  /** Cluster tree refreshes (the Refresh command, then the view asks for the rows again). */
  refreshes: number;
  /** Watch connections the API server ends (every other one after a compaction: 410 Gone). */
  watchRestarts: number;
  /** Samples taken after warm-up. */
  samples: number;
  /** The share of the work done before the first sample (a short run needs more: RSS settles over minutes). */
  warmUp: number;
}

const size: SoakSize = FULL_DAY
  ? { edits: 200_000, documents: 50, refreshes: 10_000, watchRestarts: 1_000, samples: 20, warmUp: 0.3 }
  : { edits: 40_000, documents: 50, refreshes: 150, watchRestarts: 15, samples: 12, warmUp: 0.5 };

/** KW_SOAK_EDITS and KW_SOAK_REFRESHES resize one part (a watch restart every 10 refreshes, as in the day). */
const edits = Number(process.env.KW_SOAK_EDITS) || size.edits;
const refreshes = Number(process.env.KW_SOAK_REFRESHES) || size.refreshes;
export const SOAK_SIZE: SoakSize = {
  ...size,
  edits,
  refreshes,
  watchRestarts: refreshes === size.refreshes ? size.watchRestarts : Math.floor(refreshes / 10),
};

/** The figures of one suite, for `npm run soak` (nothing written without KW_SOAK_REPORT). */
export function reportFigures(suite: string, figures: Record<string, unknown>, verdict: Verdict): void {
  const dir = process.env.KW_SOAK_REPORT;
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${suite}.json`), JSON.stringify({ suite, figures, verdict }, null, 1) + '\n');
}
