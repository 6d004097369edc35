// The Kubernetes API server's own validation, compiled to WebAssembly (validator/, built by
// scripts/validator.mjs), run as a WASI (preview1) reactor: compiled and initialised once (Go's runtime
// and the packages' init, about a second), then each document is one call that costs milliseconds.
// Used by `check --exact-api` and the language server's kubeWindows.exactApi setting; what an answer
// means is core/exact-api's business.
//
// The WASI functions come from a pure-JavaScript implementation (@bjorn3/browser_wasi_shim), not
// node:wasi: Node's native WASI functions are called from WebAssembly as V8 "fast API calls", and one
// that allocates (poll_oneoff, which Go's scheduler calls now and then) can start a garbage collection
// inside such a call and corrupt the JavaScript heap (nodejs/node#46777, still open). Under load that
// crashed the process (SIGSEGV) in about one run in two with the 1.37 module. The module needs only
// clocks, random bytes and a clock-only poll; it gets no files, no arguments and no environment.
import { readFileSync } from 'node:fs';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { WASI } from '@bjorn3/browser_wasi_shim';
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

/**
 * What the module is given: WASI preview1 in JavaScript, with no arguments, no environment and no file
 * descriptors (not even stdio), so that it reads only what it is handed.
 */
export function validatorImports(): { wasi: WASI; imports: { wasi_snapshot_preview1: WASI['wasiImport'] } } {
  const wasi = new WASI(['validator'], [], [], { debug: false });
  return { wasi, imports: { wasi_snapshot_preview1: wasi.wasiImport } };
}

/** Compiles and initialises the module at `path` (plain or compressed); the instance is kept for every later call. */
export async function loadValidator(path: string, kubernetes: string): Promise<Validator> {
  const module = await wasm.compile(readModule(path));
  const { wasi, imports } = validatorImports();
  const instance = await wasm.instantiate(module, imports);
  wasi.initialize(instance as unknown as Parameters<WASI['initialize']>[0]);
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
