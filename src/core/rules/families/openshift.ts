import type { Rule } from '../types';

export const openshiftRules: Rule[] = [];
