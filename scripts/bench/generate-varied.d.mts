/** N Windows workloads of varied shapes (see generate-varied.mjs); `dense`: a finding in every document. */
export function generateVaried(n: number, options?: { findings?: 'dense' | 'sparse' | 'none' }): string;
