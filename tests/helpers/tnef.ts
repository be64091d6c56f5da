/**
 * Builds a small TNEF stream (winmail.dat) as MS-OXTNEF lays it out, for bodies no real fixture here carries:
 * the signature 0x223E9F78, a legacy key, then attributes (level, id = type << 16 | id, length, data, checksum =
 * sum of the data bytes mod 65536). The MAPI properties sit in attMAPIProps (0x00069003) as a count followed by
 * each property (type, id, then for PT_BINARY one value: its length and bytes padded to 4).
 */
function attribute(level: number, id: number, data: Buffer) {
  const head = Buffer.alloc(9);
  head.writeUInt8(level, 0);
  head.writeUInt32LE(id, 1);
  head.writeUInt32LE(data.length, 5);
  const checksum = Buffer.alloc(2);
  checksum.writeUInt16LE(data.reduce((sum, b) => (sum + b) & 0xffff, 0));
  return Buffer.concat([head, data, checksum]);
}

const PT_BINARY = 0x0102;
const ATT_MAPI_PROPS = 0x00069003;
const ATT_TNEF_VERSION = 0x00089006;
const LVL_MESSAGE = 0x01;

export function tnefWithBinaryProperties(props: { id: number; data: Buffer }[]) {
  const parts: Buffer[] = [];
  const count = Buffer.alloc(4);
  count.writeUInt32LE(props.length);
  parts.push(count);
  for (const p of props) {
    const head = Buffer.alloc(12);
    head.writeUInt16LE(PT_BINARY, 0);
    head.writeUInt16LE(p.id, 2);
    head.writeUInt32LE(1, 4);
    head.writeUInt32LE(p.data.length, 8);
    parts.push(head, p.data, Buffer.alloc((4 - (p.data.length % 4)) % 4));
  }
  const signature = Buffer.alloc(6);
  signature.writeUInt32LE(0x223e9f78, 0);
  signature.writeUInt16LE(0x0001, 4);
  const version = Buffer.alloc(4);
  version.writeUInt32LE(0x00010000);
  return Buffer.concat([signature, attribute(LVL_MESSAGE, ATT_TNEF_VERSION, version), attribute(LVL_MESSAGE, ATT_MAPI_PROPS, Buffer.concat(parts))]);
}

/**
 * RTF in MS-OXRTFCE's uncompressed form (COMPTYPE "MELA"): COMPSIZE (the bytes after it), RAWSIZE, COMPTYPE,
 * CRC (0 when uncompressed), then the RTF as it is. Readers must accept it as they accept LZFu.
 */
export function uncompressedRtf(rtf: string) {
  const raw = Buffer.from(rtf, 'latin1');
  const head = Buffer.alloc(16);
  head.writeUInt32LE(raw.length + 12, 0);
  head.writeUInt32LE(raw.length, 4);
  head.writeUInt32LE(0x414c454d, 8);
  head.writeUInt32LE(0, 12);
  return Buffer.concat([head, raw]);
}
