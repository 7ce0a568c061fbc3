// A line chart of an output for the playground: every element (or, past
// the canvas's width, each column's least and greatest) scaled between the
// vector's least and greatest finite values, on a canvas.

const WIDTH = 240;
const HEIGHT = 64;

/** binary16 bits as a number. */
function half(bits) {
  const sign = bits & 0x8000 ? -1 : 1;
  const exp = (bits >> 10) & 0x1f;
  const frac = bits & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24;
  if (exp === 31) return frac === 0 ? sign * Infinity : NaN;
  return sign * (1 + frac / 1024) * 2 ** (exp - 15);
}

/** A canvas plotting `array` (of element type `elem`). */
export function plot(array, elem) {
  const canvas = document.createElement("canvas");
  canvas.width = WIDTH;
  canvas.height = HEIGHT;
  canvas.className = "plot";
  const values = elem === "f16" ? Array.from(array, half) : array;
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of values) {
    if (Number.isFinite(v)) {
      lo = Math.min(lo, v);
      hi = Math.max(hi, v);
    }
  }
  const g = canvas.getContext("2d");
  if (g === null || !(lo <= hi) || values.length === 0) return canvas;
  const y = (v) => HEIGHT - 2 - ((v - lo) / (hi - lo || 1)) * (HEIGHT - 4);
  const columns = Math.min(WIDTH, values.length);
  g.strokeStyle = "#1565c0";
  g.beginPath();
  for (let c = 0; c < columns; c++) {
    const from = Math.floor((c * values.length) / columns);
    const to = Math.max(from + 1, Math.floor(((c + 1) * values.length) / columns));
    let min = Infinity;
    let max = -Infinity;
    for (let i = from; i < to; i++) {
      if (Number.isFinite(values[i])) {
        min = Math.min(min, values[i]);
        max = Math.max(max, values[i]);
      }
    }
    if (min > max) continue;
    const x = columns === 1 ? WIDTH / 2 : (c * (WIDTH - 1)) / (columns - 1);
    g.lineTo(x, y(max));
    if (min !== max) g.lineTo(x, y(min));
  }
  g.stroke();
  return canvas;
}
