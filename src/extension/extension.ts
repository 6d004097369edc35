// The VS Code extension arrives with its own issue; until then it activates and does nothing,
// so the package and its manifest can already be built and installed.
export function activate(): void {}

export function deactivate(): void {}
