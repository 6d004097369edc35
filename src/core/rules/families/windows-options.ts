import type { Rule } from '../types';

export const windowsOptionsRules: Rule[] = [];
