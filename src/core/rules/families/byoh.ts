import type { Rule } from '../types';

export const byohRules: Rule[] = [];
