// The names kube-windows writes on its admission policies: what marks them as ours, and what they say
// about themselves. Apart from the generator so that the cluster tree reads them without the rules.
export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';
export const MANAGED_BY = 'kube-windows';
export const VERSION_ANNOTATION = 'kube-windows.io/version';
export const RULES_ANNOTATION = 'kube-windows.io/rules';
export const ACTION_ANNOTATION = 'kube-windows.io/action';
