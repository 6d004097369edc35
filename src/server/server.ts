// The language server arrives with its own issue; this entry point keeps the bundle layout fixed.
process.stderr.write('kube-windows language server: not implemented yet\n');
process.exit(0);
