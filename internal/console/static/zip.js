// A ZIP archive of files the console already holds (results fetched with
// the access token), made in the browser. The results are JPEG, PNG or
// WebP, compressed already, so the entries are stored, not deflated: the
// archive is the files, a header each and a directory, and building it
// costs a CRC-32 pass and no server at all. Names are UTF-8 (flag bit 11);
// no ZIP64, so an archive stays under 4 GB and 65,535 entries (zipLimit).

const table = new Uint32Array(256).map((_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

export function crc32(bytes) {
  let c = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) c = table[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** zipLimit is the most bytes of files one archive may hold. */
export const zipLimit = 0xffffffff - 64 * 1024 * 1024;

function dosTime(d) {
  return {
    time: (d.getHours() << 11) | (d.getMinutes() << 5) | (d.getSeconds() >> 1),
    date: ((Math.max(d.getFullYear(), 1980) - 1980) << 9) | ((d.getMonth() + 1) << 5) | d.getDate(),
  };
}

/**
 * zip returns a Blob of a store-only ZIP archive of files: [{name, blob,
 * date}]. Names are made unique ("a.jpg", "a (2).jpg").
 */
export async function zip(files) {
  const enc = new TextEncoder();
  const parts = [];
  const central = [];
  const seen = new Set();
  let offset = 0;
  let total = 0;
  for (const f of files) {
    total += f.blob.size;
    if (total > zipLimit || files.length > 0xffff) throw new RangeError('too much for one ZIP archive');
    const name = enc.encode(unique(f.name, seen));
    const data = new Uint8Array(await f.blob.arrayBuffer());
    const crc = crc32(data);
    const { time, date } = dosTime(f.date ? new Date(f.date) : new Date());
    const local = new DataView(new ArrayBuffer(30));
    local.setUint32(0, 0x04034b50, true);
    local.setUint16(4, 20, true); // version needed: 2.0
    local.setUint16(6, 0x0800, true); // UTF-8 names
    local.setUint16(8, 0, true); // stored
    local.setUint16(10, time, true);
    local.setUint16(12, date, true);
    local.setUint32(14, crc, true);
    local.setUint32(18, data.length, true);
    local.setUint32(22, data.length, true);
    local.setUint16(26, name.length, true);
    local.setUint16(28, 0, true);
    parts.push(local, name, data);
    const c = new DataView(new ArrayBuffer(46));
    c.setUint32(0, 0x02014b50, true);
    c.setUint16(4, 20, true); // made by: 2.0, MS-DOS attributes
    c.setUint16(6, 20, true);
    c.setUint16(8, 0x0800, true);
    c.setUint16(10, 0, true);
    c.setUint16(12, time, true);
    c.setUint16(14, date, true);
    c.setUint32(16, crc, true);
    c.setUint32(20, data.length, true);
    c.setUint32(24, data.length, true);
    c.setUint16(28, name.length, true);
    c.setUint32(42, offset, true);
    central.push(c, name);
    offset += 30 + name.length + data.length;
  }
  const size = central.reduce((s, p) => s + p.byteLength, 0);
  const end = new DataView(new ArrayBuffer(22));
  end.setUint32(0, 0x06054b50, true);
  end.setUint16(8, files.length, true);
  end.setUint16(10, files.length, true);
  end.setUint32(12, size, true);
  end.setUint32(16, offset, true);
  return new Blob([...parts, ...central, end], { type: 'application/zip' });
}

function unique(name, seen) {
  let n = name;
  for (let i = 2; seen.has(n.toLowerCase()); i++) n = name.replace(/(\.[^.]*)?$/, (ext) => ` (${i})${ext}`);
  seen.add(n.toLowerCase());
  return n;
}
