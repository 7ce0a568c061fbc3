// A program shared by URL: the source, the -D line, the target, the
// schedule and the seed as JSON, deflated (CompressionStream) and written
// base64url in the address's fragment (`#p=...`), which no server sees.

const KEY = "#p=";

async function through(bytes, stream) {
  const piped = new Blob([bytes]).stream().pipeThrough(stream);
  return new Uint8Array(await new Response(piped).arrayBuffer());
}

function base64url(bytes) {
  let text = "";
  for (const b of bytes) text += String.fromCharCode(b);
  return btoa(text).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

function unbase64url(text) {
  const plain = atob(text.replaceAll("-", "+").replaceAll("_", "/"));
  return Uint8Array.from(plain, (c) => c.charCodeAt(0));
}

/** `state` ({source, defines, target, schedule, seed}) as a fragment. */
export async function encode(state) {
  const json = new TextEncoder().encode(JSON.stringify(state));
  return KEY + base64url(await through(json, new CompressionStream("deflate-raw")));
}

/** The state a fragment holds, `null` when it holds none, or an Error. */
export async function decode(hash) {
  if (!hash.startsWith(KEY)) return null;
  try {
    const json = await through(unbase64url(hash.slice(KEY.length)), new DecompressionStream("deflate-raw"));
    const state = JSON.parse(new TextDecoder().decode(json));
    if (typeof state?.source !== "string") return new Error("a shared program without its source");
    return state;
  } catch (e) {
    return new Error(`the shared program cannot be read: ${e.message ?? e}`);
  }
}
