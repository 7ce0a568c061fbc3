// NumPy's .npy format (version 1.0) for the playground: a typed array of
// an output written as a one-dimensional array, and an uploaded file read
// into the typed array an input of its element type takes (what `texprc
// eval --input NAME=FILE` reads: little-endian, C order, any shape read
// flat).

const DTYPE = { f32: "<f4", i32: "<i4", u32: "<u4", f16: "<f2" };
const ARRAY = { "<f4": Float32Array, "<i4": Int32Array, "<u4": Uint32Array, "<f2": Uint16Array };

/** `array` (of element type `elem`) as the bytes of a .npy file. */
export function toNpy(array, elem) {
  const dict = `{'descr': '${DTYPE[elem]}', 'fortran_order': False, 'shape': (${array.length},), }`;
  // Magic (6) + version (2) + length (2) + the header, padded with spaces
  // and ended by a newline to a multiple of 64 bytes.
  const unpadded = 10 + dict.length + 1;
  const header = dict + " ".repeat((64 - (unpadded % 64)) % 64) + "\n";
  const bytes = new Uint8Array(10 + header.length + array.byteLength);
  bytes.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0, header.length & 0xff, header.length >> 8]);
  for (let i = 0; i < header.length; i++) bytes[10 + i] = header.charCodeAt(i);
  bytes.set(new Uint8Array(array.buffer, array.byteOffset, array.byteLength), 10 + header.length);
  return bytes;
}

/** The typed array in a .npy file's bytes (`{array, elem}`), or an Error
 * saying why it cannot be read. */
export function fromNpy(buffer) {
  const bytes = new Uint8Array(buffer);
  const magic = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59];
  if (bytes.length < 10 || magic.some((b, i) => bytes[i] !== b)) return new Error("not a .npy file");
  const major = bytes[6];
  const wide = major >= 2;
  const view = new DataView(buffer);
  const length = wide ? view.getUint32(8, true) : view.getUint16(8, true);
  const start = (wide ? 12 : 10) + length;
  if (start > bytes.length) return new Error("a .npy header past the end of the file");
  const header = new TextDecoder("latin1").decode(bytes.subarray(wide ? 12 : 10, start));
  const descr = /'descr':\s*'([^']*)'/.exec(header)?.[1];
  const Array = ARRAY[descr];
  if (Array === undefined) return new Error(`an element type the playground does not read: ${descr}`);
  if (/'fortran_order':\s*True/.test(header)) return new Error("a .npy file in Fortran order");
  const shape = /'shape':\s*\(([^)]*)\)/.exec(header)?.[1] ?? "";
  const count = shape.split(",").filter((s) => s.trim() !== "").reduce((n, s) => n * Number(s), 1);
  if ((bytes.length - start) !== count * Array.BYTES_PER_ELEMENT) {
    return new Error(`the data holds ${bytes.length - start} bytes, not ${count} elements of ${descr}`);
  }
  const elem = Object.keys(DTYPE).find((e) => DTYPE[e] === descr);
  return { array: new Array(buffer.slice(start)), elem };
}
