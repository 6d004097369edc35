// Generates N realistic Windows Deployments. `findings`: 'sparse' (default) gives every tenth one
// a finding (WIN002); 'none' gives none; 'dense' also makes every one tolerate only os=windows (one
// more finding each, with a fix): the findings-dense case, where the cost of a finding shows.
export function generateDeployments(n, { findings = 'sparse' } = {}) {
  const docs = [];
  for (let i = 0; i < n; i++) docs.push(deployment(i, findings !== 'none' && i % 10 === 0, findings === 'dense'));
  return docs.join('---\n');
}

function deployment(i, bad, dense) {
  const extra = bad ? '\n            readOnlyRootFilesystem: true' : '';
  const toleration = dense ? 'operator: Equal\n          value: windows' : 'operator: Exists';
  return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web-${i}
  namespace: team-${i % 17}
  labels:
    app: web-${i}
    tier: frontend
spec:
  replicas: 3
  selector:
    matchLabels:
      app: web-${i}
  template:
    metadata:
      labels:
        app: web-${i}
    spec:
      os:
        name: windows
      nodeSelector:
        kubernetes.io/os: windows
        node.kubernetes.io/windows-build: "10.0.20348"
      tolerations:
        - key: os
          ${toleration}
          effect: NoSchedule
      containers:
        - name: iis
          image: mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022
          ports:
            - containerPort: 80
              protocol: TCP
          resources:
            requests:
              cpu: 500m
              memory: 800Mi
            limits:
              cpu: "1"
              memory: 1Gi
          securityContext:
            windowsOptions:
              runAsUserName: ContainerUser${extra}
          livenessProbe:
            exec:
              command: ["cmd", "/c", "dir", "C:\\\\inetpub"]
            periodSeconds: 10
`;
}
