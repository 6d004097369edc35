import type { Rule } from '../types';

export const imageRules: Rule[] = [];
