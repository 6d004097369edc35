// The Kubernetes documentation pages hover and completion link to, named once.

export const DOCS = {
  intro: 'https://kubernetes.io/docs/concepts/windows/intro/',
  userGuide: 'https://kubernetes.io/docs/concepts/windows/user-guide/',
  hostProcess: 'https://kubernetes.io/docs/tasks/configure-pod-container/create-hostprocess-pod/',
  runAsUserName: 'https://kubernetes.io/docs/tasks/configure-pod-container/configure-runasusername/',
  gmsa: 'https://kubernetes.io/docs/tasks/configure-pod-container/configure-gmsa/',
  runtimeClass: 'https://kubernetes.io/docs/concepts/containers/runtime-class/',
  networking: 'https://kubernetes.io/docs/concepts/services-networking/windows-networking/',
} as const;
