/** N Windows Deployments (see generate.mjs); `sparse`: a finding in every tenth, `dense`: in every one, `none`: none. */
export function generateDeployments(n: number, options?: { findings?: 'dense' | 'sparse' | 'none' }): string;
