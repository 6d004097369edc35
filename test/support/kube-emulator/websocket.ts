// The server side of RFC 6455 for the emulator's pods/exec: the opening handshake with subprotocol
// negotiation, masked client frames (text, binary, continuation, ping, close) and unmasked server
// frames. Test-only and small on purpose; enough for the Kubernetes channel protocols.
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

export interface WsConnection {
  protocol: string;
  send(data: Buffer): void;
  close(code?: number): void;
  onMessage(listener: (data: Buffer, binary: boolean) => void): void;
  onClose(listener: () => void): void;
}

/** Refuses an upgrade with an HTTP answer (a Kubernetes Status), as the API server does before switching protocols. */
export function refuseUpgrade(socket: Duplex, code: number, reason: string, body: unknown): void {
  const text = JSON.stringify(body);
  socket.end(
    `HTTP/1.1 ${code} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
  );
}

/** Completes the handshake choosing the first protocol of `supported` the client offered; undefined (and a 400) when none. */
export function acceptUpgrade(
  req: IncomingMessage,
  socket: Duplex,
  supported: readonly string[],
): WsConnection | undefined {
  const key = req.headers['sec-websocket-key'];
  const offered = String(req.headers['sec-websocket-protocol'] ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  const protocol = supported.find((p) => offered.includes(p));
  if (!key || !protocol) {
    refuseUpgrade(socket, 400, 'Bad Request', {
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      message: 'unable to upgrade: no supported subprotocol',
      reason: 'BadRequest',
      code: 400,
    });
    return undefined;
  }
  const accept = createHash('sha1')
    .update(key + GUID)
    .digest('base64');
  socket.write(
    `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\nSec-WebSocket-Protocol: ${protocol}\r\n\r\n`,
  );
  const messageListeners: ((d: Buffer, binary: boolean) => void)[] = [];
  const closeListeners: (() => void)[] = [];
  let buf = Buffer.alloc(0);
  let fragments: Buffer[] = [];
  let fragmentBinary = false;
  let closed = false;
  const frame = (opcode: number, payload: Buffer): Buffer => {
    const len = payload.length;
    const head =
      len < 126
        ? Buffer.from([0x80 | opcode, len])
        : len < 65536
          ? Buffer.from([0x80 | opcode, 126, len >> 8, len & 255])
          : Buffer.alloc(10);
    if (len >= 65536) {
      head[0] = 0x80 | opcode;
      head[1] = 127;
      head.writeBigUInt64BE(BigInt(len), 2);
    }
    return Buffer.concat([head, payload]);
  };
  const finish = (): void => {
    if (closed) return;
    closed = true;
    for (const l of closeListeners) l();
  };
  socket.on('data', (chunk: Buffer) => {
    buf = Buffer.concat([buf, chunk]);
    for (;;) {
      if (buf.length < 2) return;
      const fin = (buf[0]! & 0x80) !== 0;
      const opcode = buf[0]! & 0x0f;
      const masked = (buf[1]! & 0x80) !== 0;
      let len = buf[1]! & 0x7f;
      let off = 2;
      if (len === 126) {
        if (buf.length < 4) return;
        len = buf.readUInt16BE(2);
        off = 4;
      } else if (len === 127) {
        if (buf.length < 10) return;
        len = Number(buf.readBigUInt64BE(2));
        off = 10;
      }
      const maskOff = off;
      if (masked) off += 4;
      if (buf.length < off + len) return;
      const payload = Buffer.from(buf.subarray(off, off + len));
      if (masked) for (let i = 0; i < payload.length; i++) payload[i]! ^= buf[maskOff + (i % 4)]!;
      buf = buf.subarray(off + len);
      if (opcode === 8) {
        if (!closed) socket.end(frame(8, payload.subarray(0, 2)));
        finish();
        return;
      }
      if (opcode === 9) {
        socket.write(frame(10, payload));
        continue;
      }
      if (opcode === 10) continue;
      if (opcode === 1 || opcode === 2) {
        fragments = [payload];
        fragmentBinary = opcode === 2;
      } else if (opcode === 0) fragments.push(payload);
      if (fin) {
        const data = Buffer.concat(fragments);
        fragments = [];
        for (const l of messageListeners) l(data, fragmentBinary);
      }
    }
  });
  socket.on('close', finish);
  socket.on('error', finish);
  return {
    protocol,
    send: (data) => {
      if (!closed) socket.write(frame(2, data));
    },
    close: (code = 1000) => {
      if (closed) return;
      const p = Buffer.alloc(2);
      p.writeUInt16BE(code);
      socket.end(frame(8, p));
      finish();
    },
    onMessage: (l) => void messageListeners.push(l),
    onClose: (l) => void closeListeners.push(l),
  };
}
