/** The LSP bench's statistics (see stats.mjs). */
export interface Interval {
  value: number;
  low: number;
  high: number;
}
export function quantile(xs: readonly number[], q: number): number;
export function median(xs: readonly number[]): number;
export function mean(xs: readonly number[]): number;
export function seeded(seed: number): () => number;
export function shuffled<T>(xs: readonly T[], random: () => number): T[];
export function withInterval(
  xs: readonly number[],
  statistic: (xs: number[]) => number,
  random: () => number,
  resamples?: number,
): Interval;
export function differences(a: readonly number[], b: readonly number[]): number[];
export function roundDifferences(m: { range: number[]; whole: number[]; floor: number[]; tiny: number[] }): {
  end: number[];
  transport: number[];
  own: number[];
};
export function signed(x: number, digits?: number): string;
export function meaning(s: Interval): string;
export function describe(xs: readonly number[], random: () => number): { median: Interval; mean: Interval; text: string };
