// Generates N realistic Windows Deployments; every tenth one carries a finding (WIN002).
export function generateDeployments(n) {
  const docs = [];
  for (let i = 0; i < n; i++) docs.push(deployment(i, i % 10 === 0));
  return docs.join('---\n');
}

function deployment(i, bad) {
  const extra = bad ? '\n            readOnlyRootFilesystem: true' : '';
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
          operator: Exists
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
