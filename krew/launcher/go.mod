module kube-windows.dev/krew/launcher

go 1.22
