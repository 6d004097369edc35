// A kubelet double (test-only): the part of the kubelet's HTTPS server (port 10250) that the API
// server's node proxy reaches for node logs, answering as the kubelet of Kubernetes 1.35 does
// (pkg/kubelet/kubelet.go Run: logServer; pkg/kubelet/server/server.go InstallSystemLogHandler;
// pkg/kubelet/kubelet_server_journal.go newNodeLogQuery/validate/Copy):
// - enableSystemLogHandler false: every /logs/ request answers 405 "logs endpoint is disabled."
// - NodeLogQuery off (or enableSystemLogQuery false): /logs/ is Go's http.FileServer over the log
//   folder: a folder listing (`<a href="name">`) or the file; ?query= is ignored.
// - Log query on: ?query= is parsed (400 for a bad tailLines/sinceTime), a path with a query is
//   refused (406), validate() refuses bad service names, files with options, tailLines out of
//   0..100000 (406); a service logging to the event log (native) gets its lines (tailLines and
//   pattern applied); a service logging to a file gets the file, or with options the note
//   "options present and query resolved to log files for [svc]".
// - /containerLogs/NS/POD/CONTAINER (what the API server's pods/log calls): the text set for it,
//   tailLines applied; previous=true without an earlier instance is refused (400) in the kubelet's words.
// Every request is recorded (path and query as received). A Node points to it through
// status.addresses (InternalIP) and status.daemonEndpoints.kubeletEndpoint.Port.
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { generateCerts } from './kube-emulator/certs';

export interface KubeletDoubleOptions {
  /** Files of the log folder (C:\var\log), by path with / separators: 'kubelet/kubelet.log'. */
  files?: Record<string, string>;
  /** Services for the log query: native ones log to the event log (their lines), the others to a file of `files`. */
  services?: Record<string, { native: string } | { file: string }>;
  enableSystemLogHandler?: boolean;
  /** Feature gate NodeLogQuery and enableSystemLogQuery together. */
  enableSystemLogQuery?: boolean;
  /** The address to listen on (default 127.0.0.1). */
  host?: string;
  /**
   * Container logs the API server's pods/log reaches (GET /containerLogs/NS/POD/CONTAINER), by
   * `ns/pod/container`; `ns/pod/container#previous` for the instance before the last restart.
   */
  containerLogs?: Record<string, string>;
}

export interface KubeletRequest {
  method: string;
  /** The path as received, e.g. /logs/kubelet/kubelet.log. */
  path: string;
  /** The raw query string (without ?). */
  query: string;
}

export interface KubeletDouble {
  host: string;
  port: number;
  requests: KubeletRequest[];
  set(options: Partial<KubeletDoubleOptions>): void;
  /** A Node's status pieces pointing at this double. */
  nodeStatus(): {
    addresses: { type: string; address: string }[];
    daemonEndpoints: { kubeletEndpoint: { Port: number } };
  };
  stop(): Promise<void>;
}

const SERVICE_UNSAFE = /[^a-zA-Z\-_.:0-9@]+/;

/** http.Error as Go writes it. */
function goError(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
  res.end(`${message}\n`);
}

export async function startKubeletDouble(options: KubeletDoubleOptions = {}): Promise<KubeletDouble> {
  let o: KubeletDoubleOptions = {
    enableSystemLogHandler: true,
    enableSystemLogQuery: true,
    files: {},
    services: {},
    ...options,
  };
  const requests: KubeletRequest[] = [];
  const certs = generateCerts();

  function fileServer(res: ServerResponse, path: string): void {
    const files = o.files ?? {};
    const rel = decodeURIComponent(path.replace(/^\/+/, ''));
    if (rel === '' || rel.endsWith('/')) {
      const prefix = rel;
      const names = new Set<string>();
      for (const f of Object.keys(files)) {
        if (!f.startsWith(prefix)) continue;
        const rest = f.slice(prefix.length);
        const i = rest.indexOf('/');
        names.add(i >= 0 ? rest.slice(0, i + 1) : rest);
      }
      if (prefix !== '' && names.size === 0) return goError(res, 404, '404 page not found');
      const body =
        '<!doctype html>\n<meta name="viewport" content="width=device-width">\n<pre>\n' +
        [...names]
          .sort()
          .map(
            (n) =>
              `<a href="${encodeURI(n).replace(/\?/g, '%3F').replace(/#/g, '%23')}">${n.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</a>\n`,
          )
          .join('') +
        '</pre>\n';
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      return void res.end(body);
    }
    if (Object.keys(files).some((f) => f.startsWith(rel + '/'))) {
      // http.FileServer redirects a folder without its slash
      res.writeHead(301, { Location: `${rel.split('/').pop()}/` });
      return void res.end();
    }
    const text = files[rel];
    if (text === undefined) return goError(res, 404, '404 page not found');
    const buf = Buffer.from(text);
    res.writeHead(200, {
      'Content-Type': 'text/plain; charset=utf-8',
      'Content-Length': String(buf.length),
      'Last-Modified': new Date(0).toUTCString(),
    });
    res.end(buf);
  }

  function containerLog(res: ServerResponse, url: URL): void {
    const [ns, pod, container] = url.pathname.slice('/containerLogs/'.length).split('/').map(decodeURIComponent);
    const previous = url.searchParams.get('previous') === 'true';
    const text = o.containerLogs?.[`${ns}/${pod}/${container}${previous ? '#previous' : ''}`];
    if (text === undefined) {
      if (previous) return goError(res, 400, `previous terminated container "${container}" in pod "${pod}" not found`);
      return goError(res, 404, `container "${container}" in pod "${pod}" is not available`);
    }
    let lines = text.split('\n');
    if (lines[lines.length - 1] === '') lines.pop();
    const tail = url.searchParams.get('tailLines');
    if (tail !== null) lines = lines.slice(-Number(tail) || lines.length);
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.end(lines.map((l) => `${l}\n`).join(''));
  }

  function handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'https://kubelet');
    requests.push({ method: req.method ?? 'GET', path: url.pathname, query: url.search.replace(/^\?/, '') });
    if (url.pathname.startsWith('/containerLogs/')) return containerLog(res, url);
    if (!url.pathname.startsWith('/logs')) return goError(res, 404, '404 page not found');
    if (!o.enableSystemLogHandler) return goError(res, 405, 'logs endpoint is disabled.');
    if (url.pathname === '/logs') {
      res.writeHead(301, { Location: '/logs/' });
      return void res.end();
    }
    const path = url.pathname.slice('/logs/'.length);
    if (!o.enableSystemLogQuery) return fileServer(res, path);
    const q = url.searchParams;
    const queries = q.getAll('query');
    const errs: string[] = [];
    const files = queries.filter((x) => /[/\\]/.test(x));
    const services = queries.filter((x) => !/[/\\]/.test(x) && x.trim() !== '');
    if (q.has('query') && files.length === 0 && services.length === 0)
      errs.push(`query: Invalid value: ${JSON.stringify(queries)}: may not be empty`);
    const since = q.get('sinceTime');
    if (since && !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(since))
      errs.push(`sinceTime: Invalid value: "${since}": invalid time format`);
    const tail = q.get('tailLines');
    if (tail && !/^-?\d+$/.test(tail))
      errs.push(`tailLines: Invalid value: "${tail}": strconv.Atoi: parsing "${tail}": invalid syntax`);
    if (errs.length > 0) return goError(res, 400, errs.length > 1 ? `[${errs.join(', ')}]` : errs[0]!);
    const hasOptions = Boolean(since || q.get('untilTime') || tail || q.get('boot') || q.get('pattern'));
    const isQuery = queries.length > 0 || hasOptions;
    if (!isQuery) return fileServer(res, path);
    if (path !== '') return goError(res, 406, 'path not allowed in query mode');
    const v: string[] = [];
    for (const s of services)
      if (SERVICE_UNSAFE.test(s) || s.length > 256)
        v.push(`query: Invalid value: "${s}": input contains unsafe characters`);
    if (files.length === 0 && services.length === 0) v.push('query: Required value: cannot be empty with options');
    else if (files.length > 0 && services.length > 0)
      v.push(
        `query: Invalid value: "[${files.join(' ')}], [${services.join(' ')}]": cannot specify a file and service`,
      );
    else if (files.length === 1 && hasOptions)
      v.push(`query: Invalid value: ${JSON.stringify(files)}: cannot specify file with options`);
    if (tail && (Number(tail) < 0 || Number(tail) > 100000))
      v.push(`tailLines: Invalid value: ${tail}: must be between 0 and 100000, inclusive`);
    if (v.length > 0) return goError(res, 406, v.length > 1 ? `[${v.join(', ')}]` : v[0]!);
    if (files.length === 1) return fileServer(res, files[0]!.replace(/\\/g, '/'));
    res.writeHead(200, { 'Content-Type': 'text/plain;charset=UTF-8' });
    const fileLoggers: string[] = [];
    for (const s of services) {
      const svc = o.services?.[s];
      if (svc && 'native' in svc) {
        let lines = svc.native.split('\n').filter((l) => l !== '');
        const pattern = q.get('pattern');
        if (pattern) lines = lines.filter((l) => new RegExp(pattern).test(l));
        if (tail) lines = lines.slice(-Number(tail));
        res.write(lines.map((l) => `${l}\n`).join(''));
      } else fileLoggers.push(s);
    }
    if (fileLoggers.length > 0 && hasOptions) {
      res.end(
        `\noptions present and query resolved to log files for [${fileLoggers.join(' ')}]\ntry without specifying options\n`,
      );
      return;
    }
    for (const s of fileLoggers) {
      const svc = o.services?.[s];
      const text = svc && 'file' in svc ? o.files?.[svc.file] : undefined;
      res.write(text ?? `\nError: unable to find logs for ${s}\n`);
    }
    res.end();
  }

  const host = options.host ?? '127.0.0.1';
  const server: Server = createServer({ key: certs.keyPem, cert: certs.certPem }, handle);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
  const port = (server.address() as { port: number }).port;
  return {
    host,
    port,
    requests,
    set: (next) => void (o = { ...o, ...next }),
    nodeStatus: () => ({
      addresses: [{ type: 'InternalIP', address: host }],
      daemonEndpoints: { kubeletEndpoint: { Port: port } },
    }),
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
