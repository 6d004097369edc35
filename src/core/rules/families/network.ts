import type { Rule } from '../types';

export const networkRules: Rule[] = [];
