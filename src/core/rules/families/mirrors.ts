import type { Rule } from '../types';

export const mirrorRules: Rule[] = [];
