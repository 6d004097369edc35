import type { Rule } from '../types';

export const runtimeClassRules: Rule[] = [];
