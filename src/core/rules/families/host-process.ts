import type { Rule } from '../types';

export const hostProcessRules: Rule[] = [];
