// The `kube-windows` command: loads the CLI bundle (dist/cli-main.js) with the V8 code cache the
// production build saved next to it. Compiling the 2 MB bundle and then, lazily, its hot functions
// was most of a small check's time, and Node 20 has no module compile cache of its own. A cache
// that V8 rejects (another Node version, other V8 flags) or a missing one costs only the compile.
import { join } from 'node:path';
import { BUNDLE, CODE_CACHE, compileBundle, readCache } from './bundle-loader';

compileBundle(join(__dirname, BUNDLE), readCache(join(__dirname, CODE_CACHE))).run();
