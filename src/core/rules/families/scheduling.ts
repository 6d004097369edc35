import type { Rule } from '../types';

export const schedulingRules: Rule[] = [];
