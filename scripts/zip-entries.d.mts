/** Each entry of the zip file: name, uncompressed size, compressed size (see zip-entries.mjs). */
export function zipEntries(file: string): { name: string; size: number; compressed: number }[];
/** The bytes of one entry; undefined when the zip has no such entry. */
export function zipEntry(file: string, name: string): Buffer | undefined;
