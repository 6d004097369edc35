import type { Rule } from '../types';

export const runtimeRules: Rule[] = [];
