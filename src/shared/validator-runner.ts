// The Kubernetes API server's own validation, compiled to WebAssembly (validator/, built by
// scripts/validator.mjs), run under Node's WASI (preview1). The module is a Go reactor: compiled and
// initialised once (Go's runtime and the packages' init, about a second), then each document is one
// call that costs milliseconds. Used by `check --exact-api` and the language server's
// kubeWindows.exactApi setting; what an answer means is core/exact-api's business.
import { readFileSync } from 'node:fs';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { ValidatorAnswer } from '../core/exact-api/answer';

/** Node's WebAssembly global, typed for what is used here (the project's type libraries leave it out). */
interface WebAssemblyApi {
  compile(bytes: Uint8Array): Promise<object>;
  instantiate(module: object, imports: object): Promise<{ exports: object }>;
}
const wasm = (globalThis as unknown as { WebAssembly: WebAssemblyApi }).WebAssembly;

/** The reactor's exports (validator/main.go): kw_alloc → buffer, kw_validate(len) → answer length. */
interface ValidatorExports {
  memory: { buffer: ArrayBuffer };
  kw_alloc(size: number): number;
  kw_validate(size: number): number;
  kw_result_ptr(): number;
}

export interface Validator {
  /** The Kubernetes version the module was built from ("v1.35.4"). */
  readonly kubernetes: string;
  /** The API server's verdict on one document (YAML or JSON text), created in `namespace` (default: its own, else "default"). */
  validate(text: string, namespace?: string): ValidatorAnswer;
}

/** A module file's bytes, unpacked when it is shipped compressed (`.wasm.br`, `.wasm.gz`). */
function readModule(path: string): Buffer {
  const bytes = readFileSync(path);
  if (path.endsWith('.br')) return brotliDecompressSync(bytes);
  return bytes[0] === 0x1f && bytes[1] === 0x8b ? gunzipSync(bytes) : bytes;
}

/** Compiles and initialises the module at `path` (plain or compressed); the instance is kept for every later call. */
export async function loadValidator(path: string, kubernetes: string): Promise<Validator> {
  const module = await wasm.compile(readModule(path));
  // Required here, not imported at the top: loading node:wasi costs a warning, and only --exact-api
  // needs it; not import(): the CLI's bundle runs in a vm script, which has no dynamic import.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { WASI } = quietly(() => require('node:wasi') as typeof import('node:wasi'));
  // No arguments, no environment, no files: the module reads only what it is handed.
  const wasi = new WASI({ version: 'preview1', args: ['validator'], env: {}, returnOnExit: true });
  const instance = await wasm.instantiate(module, wasi.getImportObject());
  wasi.initialize(instance);
  const x = instance.exports as unknown as ValidatorExports;
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  return {
    kubernetes,
    validate(text: string, namespace?: string): ValidatorAnswer {
      const request = encoder.encode(JSON.stringify(namespace ? { text, namespace } : { text }));
      const at = x.kw_alloc(request.length);
      new Uint8Array(x.memory.buffer, at, request.length).set(request);
      const length = x.kw_validate(request.length);
      // The memory may have grown during the call: its buffer is read afresh.
      const answer = new Uint8Array(x.memory.buffer, x.kw_result_ptr(), length);
      return JSON.parse(decoder.decode(answer)) as ValidatorAnswer;
    },
  };
}

/**
 * Runs `load` with Node 20's one-time "WASI is an experimental feature" warning held back: it says
 * nothing to a user of the CLI or an editor. Other warnings still go out.
 */
function quietly<T>(load: () => T): T {
  const emit = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const text = typeof warning === 'string' ? warning : warning.message;
    if (/WASI/.test(text)) return;
    (emit as (...a: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    return load();
  } finally {
    process.emitWarning = emit;
  }
}
