// Draws media/icon.png (128x128 RGBA): the four Windows panes inside a Kubernetes-blue heptagon.
// Written with node:zlib only (no image library, nothing downloaded). Run: node scripts/icon.mjs
import { deflateSync } from 'node:zlib';
import { writeFileSync } from 'node:fs';

const S = 128;
const px = Buffer.alloc(S * S * 4);
const blend = (x, y, [r, g, b], a) => {
  const i = (y * S + x) * 4;
  const da = px[i + 3] / 255;
  const oa = a + da * (1 - a);
  if (oa === 0) return;
  px[i] = Math.round((r * a + px[i] * da * (1 - a)) / oa);
  px[i + 1] = Math.round((g * a + px[i + 1] * da * (1 - a)) / oa);
  px[i + 2] = Math.round((b * a + px[i + 2] * da * (1 - a)) / oa);
  px[i + 3] = Math.round(oa * 255);
};
// Heptagon (the Kubernetes wheel's outline), anti-aliased by 4x4 supersampling.
const cx = 64,
  cy = 65,
  R = 60;
const verts = Array.from({ length: 7 }, (_, k) => {
  const t = -Math.PI / 2 + (k * 2 * Math.PI) / 7;
  return [cx + R * Math.cos(t), cy + R * Math.sin(t)];
});
const inside = (x, y) => {
  let c = false;
  for (let i = 0, j = 6; i < 7; j = i++) {
    const [xi, yi] = verts[i],
      [xj, yj] = verts[j];
    if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) c = !c;
  }
  return c;
};
const panes = [
  [36, 36, 62, 62],
  [66, 36, 92, 62],
  [36, 66, 62, 92],
  [66, 66, 92, 92],
];
const inPane = (x, y) => panes.some(([a, b, c, d]) => x >= a && x < c && y >= b && y < d);
for (let y = 0; y < S; y++) {
  for (let x = 0; x < S; x++) {
    let hep = 0,
      pane = 0;
    for (let sy = 0; sy < 4; sy++)
      for (let sx = 0; sx < 4; sx++) {
        const X = x + (sx + 0.5) / 4,
          Y = y + (sy + 0.5) / 4;
        if (inside(X, Y)) hep++;
        if (inPane(X, Y)) pane++;
      }
    const shade = 1 - (y / S) * 0.25; // a gentle top-to-bottom gradient
    if (hep) blend(x, y, [Math.round(50 * shade), Math.round(108 * shade), Math.round(229 * shade)], hep / 16);
    if (pane) blend(x, y, [255, 255, 255], pane / 16);
  }
}
const crcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
const crc = (buf) => {
  let c = 0xffffffff;
  for (const b of buf) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
};
const chunk = (type, data) => {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const c = Buffer.alloc(4);
  c.writeUInt32BE(crc(td));
  return Buffer.concat([len, td, c]);
};
const ihdr = Buffer.alloc(13);
ihdr.writeUInt32BE(S, 0);
ihdr.writeUInt32BE(S, 4);
ihdr[8] = 8;
ihdr[9] = 6; // 8-bit RGBA
const raw = Buffer.alloc(S * (S * 4 + 1));
for (let y = 0; y < S; y++) px.copy(raw, y * (S * 4 + 1) + 1, y * S * 4, (y + 1) * S * 4);
const png = Buffer.concat([
  Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
  chunk('IHDR', ihdr),
  chunk('IDAT', deflateSync(raw, { level: 9 })),
  chunk('IEND', Buffer.alloc(0)),
]);
writeFileSync(new URL('../media/icon.png', import.meta.url), png);
console.log(`media/icon.png: ${png.length} bytes`);
