// A zip's entries from its central directory (no unzip binary needed): the .vsix file list for
// `npm run package` (scripts/package.mjs), and its files' contents for the registry-readiness test.
import { readFileSync } from 'node:fs';
import { inflateRawSync } from 'node:zlib';

function centralDirectory(buf, file) {
  let eocd = buf.length - 22;
  while (eocd >= 0 && buf.readUInt32LE(eocd) !== 0x06054b50) eocd--;
  if (eocd < 0) throw new Error(`${file} is not a zip file`);
  const count = buf.readUInt16LE(eocd + 10);
  let p = buf.readUInt32LE(eocd + 16);
  const entries = [];
  for (let i = 0; i < count; i++) {
    const nameLen = buf.readUInt16LE(p + 28);
    entries.push({
      name: buf.toString('utf8', p + 46, p + 46 + nameLen),
      method: buf.readUInt16LE(p + 10),
      compressed: buf.readUInt32LE(p + 20),
      size: buf.readUInt32LE(p + 24),
      offset: buf.readUInt32LE(p + 42),
    });
    p += 46 + nameLen + buf.readUInt16LE(p + 30) + buf.readUInt16LE(p + 32);
  }
  return entries;
}

/** Each entry of the zip file: name, uncompressed size, compressed size. */
export function zipEntries(file) {
  return centralDirectory(readFileSync(file), file).map(({ name, size, compressed }) => ({ name, size, compressed }));
}

/** The bytes of one entry (stored or deflated); undefined when the zip has no such entry. */
export function zipEntry(file, name) {
  const buf = readFileSync(file);
  const e = centralDirectory(buf, file).find((x) => x.name === name);
  if (!e) return undefined;
  const start = e.offset + 30 + buf.readUInt16LE(e.offset + 26) + buf.readUInt16LE(e.offset + 28);
  const data = buf.subarray(start, start + e.compressed);
  return e.method === 8 ? inflateRawSync(data) : Buffer.from(data);
}
