// The memory panel's worker: reads a dropped module or dump with the
// WebAssembly module the page compiled, off the page's thread. Runs after
// wasm-bindgen's glue (the global `wasm_bindgen`), in a worker made from a
// Blob, so that it works from a page opened from disk.
"use strict";
let ready;
self.onmessage = async (event) => {
  const message = event.data;
  if (message.module) {
    ready = wasm_bindgen({ module_or_path: message.module });
    return;
  }
  let reply;
  const started = performance.now();
  try {
    await ready;
    reply = message.assignment !== undefined
      ? wasm_bindgen.assignment_memory(message.assignment, message.liveRange, message.name)
      : wasm_bindgen.module_memory(new Uint8Array(message.bytes), message.name);
  } catch (error) {
    reply = JSON.stringify({ ok: false, failed: true, error: `the reader stopped: ${error}` });
  }
  self.postMessage({ id: message.id, reply, ms: performance.now() - started });
};
