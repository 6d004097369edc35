import type { Rule } from '../types';

export const linterRules: Rule[] = [];
