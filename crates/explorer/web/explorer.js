// The explorer page: the three panels over the WebAssembly functions of
// crates/explorer. Runs after wasm-bindgen's glue (the global
// `wasm_bindgen`) and the constants WASM_BASE64 and WORKER_SOURCE that the
// build inlines, so that the one page works opened from disk.
"use strict";

const $ = (id) => document.getElementById(id);
const explorer = { timings: {}, renders: 0 };
window.explorer = explorer;

/** The bytes of base64 `text`. */
function decode(text) {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** `node`'s children replaced by plain `text`, or shown/hidden when an error or warning line. */
function say(node, text) {
  node.textContent = text || "";
  if (node.classList.contains("error") || node.classList.contains("warning")) node.hidden = !text;
}

/** A table's rows from `header` and `rows` (arrays of cells); a cell is text, or [text, "text"] left-aligned. */
function fill(table, header, rows) {
  table.replaceChildren();
  if (!rows.length) return;
  const head = table.insertRow();
  for (const name of header) {
    const th = document.createElement("th");
    th.textContent = name;
    head.appendChild(th);
  }
  for (const row of rows) {
    const tr = table.insertRow();
    for (const cell of row) {
      const td = tr.insertCell();
      const [text, kind] = Array.isArray(cell) ? cell : [cell, ""];
      td.textContent = text;
      if (kind) td.className = kind;
    }
  }
}

const list = (values) => (values == null ? "none" : `[${values.join(",")}]`);
const units = ["B", "KiB", "MiB", "GiB", "TiB"];
/** `bytes` in the largest binary unit that keeps it at least 1. */
function human(bytes) {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  if (!unit) return `${bytes} B`;
  return `${Number.isInteger(value) ? value : value.toFixed(value < 10 ? 2 : 1)} ${units[unit]}`;
}

// ---- URL fragment: #shape=...&format=...&sharding=...&mesh=...&devices=...&to=...

const fragmentKeys = {
  shape: "shape-input", format: "sharding-format", sharding: "sharding-input", mesh: "mesh-input",
  devices: "devices-input", to: "reshard-input",
};

function readFragment() {
  const params = new URLSearchParams(location.hash.slice(1));
  // A link names its format, or is a Shardy one when it has a mesh, else an HloSharding one.
  const format = params.get("format");
  params.set("format", format in examples ? format : params.has("mesh") ? "sdy" : "hlo");
  for (const [key, id] of Object.entries(fragmentKeys)) {
    if (params.has(key)) $(id).value = params.get(key);
  }
  showFormat();
}

function writeFragment() {
  const params = new URLSearchParams();
  for (const [key, id] of Object.entries(fragmentKeys)) {
    // The format is written when it is not the first (HloSharding); the mesh only for Shardy.
    if (key === "format" && !shardy()) continue;
    if (key === "mesh" && !shardy()) continue;
    if ($(id).value) params.set(key, $(id).value);
  }
  history.replaceState(null, "", `#${params}`);
}

// ---- the shape panel

function renderShape() {
  const reply = JSON.parse(wasm_bindgen.shape($("shape-input").value));
  say($("shape-error"), reply.ok ? "" : reply.error);
  if (!reply.ok) {
    $("shape-picture").replaceChildren();
    $("shape-facts").replaceChildren();
    say($("shape-order"), "");
    say($("shape-text"), "");
    return;
  }
  $("shape-picture").innerHTML = reply.svg ?? "";
  if (reply.svg_error) say($("shape-picture"), reply.svg_error);
  const e = reply.explanation;
  const rows = [
    ["shape", reply.shape],
    ["element type", e.element_type],
    ["elements", e.element_count ?? "—"],
    ["byte size", e.byte_size],
    ["buffer size", e.buffer_size ?? "—"],
    ["major to minor", list(e.major_to_minor)],
    ["strides", list(e.strides)],
    ["byte strides", list(e.byte_strides)],
    ["tiles", e.tiles && e.tiles.length ? JSON.stringify(e.tiles) : "none"],
  ];
  if (e.padded_dimensions) rows.push(["padded dimensions", list(e.padded_dimensions)]);
  fill($("shape-facts"), [], []);
  for (const [name, value] of rows) {
    const tr = $("shape-facts").insertRow();
    const th = document.createElement("th");
    th.textContent = name;
    tr.appendChild(th);
    tr.insertCell().textContent = value;
  }
  if (reply.order) {
    const shown = reply.order.map((index) => (index === null ? "·" : index)).join(" ");
    const more = reply.positions > reply.order.length ? ` … (${reply.positions} positions)` : "";
    say($("shape-order"), shown + more);
  } else {
    say($("shape-order"), reply.order_error);
  }
  say($("shape-text"), reply.text);
  explorer.renders++;
}

// ---- the sharding panel: XLA's HloSharding, or Shardy's with its mesh

const examples = {
  hlo: { sharding: "{devices=[1,2]<=[2]}", mesh: "" },
  sdy: { sharding: '#sdy.sharding<@mesh, [{}, {"x"}]>', mesh: 'sdy.mesh @mesh = <["x"=2]>' },
};

const shardy = () => $("sharding-format").value === "sdy";

/** The mesh field shown for Shardy only. */
function showFormat() {
  $("mesh-row").hidden = !shardy();
}

/** A new format: its field shown, and the other format's example (if untouched) swapped for this one's. */
function changeFormat() {
  const format = $("sharding-format").value;
  const other = examples[format === "sdy" ? "hlo" : "sdy"];
  if ([other.sharding, ""].includes($("sharding-input").value)) $("sharding-input").value = examples[format].sharding;
  if (format === "sdy" && !$("mesh-input").value) $("mesh-input").value = examples.sdy.mesh;
  showFormat();
}

/** The mesh given to the WebAssembly: the field's text for Shardy, none for XLA's text. */
function mesh() {
  const text = $("mesh-input").value.trim();
  return shardy() && text ? text : undefined;
}

function deviceCount() {
  const text = $("devices-input").value.trim();
  if (!text) return [undefined, ""];
  const count = Number(text);
  if (!Number.isInteger(count) || count < 1 || count > 0xffffffff) {
    return [undefined, `the device count must be a whole number from 1 to 4294967295, got ${text}`];
  }
  return [count, ""];
}

function renderSharding() {
  const shape = $("shape-input").value;
  const [devices, badCount] = deviceCount();
  const reply = badCount ? { ok: false, error: badCount } : JSON.parse(wasm_bindgen.shard(shape, $("sharding-input").value, mesh(), devices));
  say($("sharding-error"), reply.ok ? "" : reply.error);
  say($("sharding-converted"), reply.ok && shardy() ? `as XLA's HloSharding: ${reply.sharding}` : "");
  $("sharding-converted").hidden = !$("sharding-converted").textContent;
  if (!reply.ok) {
    $("sharding-picture").replaceChildren();
    fill($("sharding-devices"), [], []);
    say($("sharding-summary"), "");
  } else {
    $("sharding-picture").innerHTML = reply.svg ?? "";
    if (reply.svg_error) say($("sharding-picture"), reply.svg_error);
    const total = reply.devices.reduce((sum, d) => sum + d.bytes, 0);
    say($("sharding-summary"), `shard shape ${reply.shard_shape}; ${reply.devices.length} devices hold ${total} bytes in all; replication groups ${JSON.stringify(reply.replication_groups)}`);
    fill($("sharding-devices"), ["device", "tile", "offsets", "limits", "bytes"],
      reply.devices.map((d) => [d.device, d.tile ? list(d.tile) : "—", d.offsets ? list(d.offsets) : "holds nothing", d.limits ? list(d.limits) : "—", d.bytes]));
  }
  const to = $("reshard-input").value.trim();
  if (!to || badCount) {
    say($("reshard-error"), "");
    say($("reshard-summary"), "");
    fill($("reshard-pieces"), [], []);
    return;
  }
  const plan = JSON.parse(wasm_bindgen.reshard(shape, $("sharding-input").value, to, mesh(), devices));
  say($("reshard-error"), plan.ok ? "" : plan.error);
  if (!plan.ok) {
    say($("reshard-summary"), "");
    fill($("reshard-pieces"), [], []);
    return;
  }
  say($("reshard-summary"), `${plan.bytes_moved} bytes move between devices, ${plan.bytes_kept} bytes stay where they are; ${plan.pieces.length} pieces`);
  fill($("reshard-pieces"), ["from", "to", "offsets", "limits", "bytes"],
    plan.pieces.map((p) => [p.from, p.to, list(p.offsets), list(p.limits), p.bytes]));
}

// ---- the memory panel: files read in a worker

let worker;
let compiled;
let request = 0;
const pending = new Map();

function memoryWorker() {
  if (!worker) {
    const url = URL.createObjectURL(new Blob([WORKER_SOURCE], { type: "text/javascript" }));
    worker = new Worker(url);
    URL.revokeObjectURL(url);
    worker.postMessage({ module: compiled });
    worker.onmessage = (event) => {
      const done = pending.get(event.data.id);
      pending.delete(event.data.id);
      if (done) done(event.data);
    };
  }
  return worker;
}

function read(message, transfer) {
  message.id = ++request;
  return new Promise((resolve) => {
    pending.set(message.id, resolve);
    memoryWorker().postMessage(message, transfer);
  });
}

async function readFiles(fileList) {
  const files = Array.from(fileList);
  const started = performance.now();
  say($("memory-error"), "");
  const assignment = files.find((f) => f.name.endsWith("buffer-assignment.txt"));
  const liveRange = files.find((f) => f.name.endsWith("live-range.txt"));
  let message;
  let transfer = [];
  let name;
  if (assignment) {
    if (!liveRange) {
      say($("memory-error"), `${assignment.name} needs the *-live-range.txt beside it: drop both files together`);
      return;
    }
    name = assignment.name;
    message = { assignment: await assignment.text(), liveRange: await liveRange.text(), name };
  } else if (files.length !== 1) {
    say($("memory-error"), `drop one module file (or a buffer-assignment text with its live ranges), not ${files.length} files`);
    return;
  } else {
    name = files[0].name;
    const bytes = await files[0].arrayBuffer();
    message = { bytes, name };
    transfer = [bytes];
  }
  say($("memory-status"), `reading ${name} in a worker…`);
  const answer = await read(message, transfer);
  const reply = JSON.parse(answer.reply);
  if (reply.failed && worker) {
    worker.terminate();
    worker = undefined;
  }
  showMemory(name, reply);
  explorer.timings.memory = { read: answer.ms, total: performance.now() - started };
  say($("memory-status"), `${name}: read in ${Math.round(answer.ms)} ms`);
}

let buffers = [];
let sortKey = "bytes";
let sortDescending = true;

function showMemory(name, reply) {
  const peak = $("memory-peak");
  if (!reply.ok) {
    say($("memory-error"), `${name}: ${reply.error}`);
    say(peak, "");
    say($("memory-warnings"), "");
    delete peak.dataset.peakBytes;
    $("memory-timeline").replaceChildren();
    $("memory-flame").replaceChildren();
    fill($("memory-sources"), [], []);
    buffers = [];
    renderBuffers();
    return;
  }
  const estimate = reply.peak_is_estimate ? " (an estimate: the module is not scheduled)" : "";
  const at = reply.peak_at ? `, at ${reply.peak_at.instruction}` : "";
  say(peak, `peak ${human(reply.peak_bytes)} (${reply.peak_bytes} bytes): static ${human(reply.static_bytes)} + heap ${human(reply.heap_peak_bytes)}${at}${estimate}`);
  peak.dataset.peakBytes = reply.peak_bytes;
  say($("memory-warnings"), (reply.warnings || []).map((w) => `warning: ${w}`).join("\n"));
  $("memory-timeline").innerHTML = reply.svg;
  $("memory-flame").innerHTML = reply.flame;
  fill($("memory-sources"), ["source", "bytes", "buffers", "percent"],
    reply.by_source.map((g) => [[g.key ?? "(no source: arguments, buffers XLA inserted)", "text"], g.bytes, g.buffers, `${g.percent.toFixed(1)}%`]));
  buffers = reply.live_at_peak;
  renderBuffers();
}

const bufferColumns = [
  ["name", "name"], ["shape", "shape"], ["index", "shape_index"], ["kind", "kind"], ["bytes", "bytes"],
];

function renderBuffers() {
  const needle = $("buffer-search").value.trim().toLowerCase();
  const shown = buffers.filter((b) => !needle || `${b.name} ${b.shape} ${b.kind}`.toLowerCase().includes(needle));
  const sign = sortDescending ? -1 : 1;
  shown.sort((a, b) => {
    const x = a[sortKey];
    const y = b[sortKey];
    const order = typeof x === "number" ? x - y : String(x).localeCompare(String(y));
    return sign * order || a.name.localeCompare(b.name);
  });
  fill($("memory-buffers"), bufferColumns.map(([label]) => label),
    shown.map((b) => [[b.name, "text"], [b.shape, "text"], list(b.shape_index), [b.kind, "text"], b.bytes]));
  const head = $("memory-buffers").rows[0];
  if (!head) return;
  bufferColumns.forEach(([, key], i) => {
    const th = head.cells[i];
    if (key === sortKey) th.dataset.order = sortDescending ? "desc" : "asc";
    th.onclick = () => {
      sortDescending = key === sortKey ? !sortDescending : key === "bytes";
      sortKey = key;
      renderBuffers();
    };
  });
}

function hoverTimeline(event) {
  const tip = $("memory-tip");
  const old = $("memory-timeline").querySelector("rect.hover");
  if (old) old.classList.remove("hover");
  const rect = event.target.closest("rect");
  const title = rect && rect.querySelector("title");
  if (!title) {
    tip.hidden = true;
    return;
  }
  rect.classList.add("hover");
  tip.textContent = title.textContent;
  tip.hidden = false;
  // Left of the pointer when the tip would run past the window's edge.
  const left = event.clientX + 12 + tip.offsetWidth > innerWidth ? event.clientX - 12 - tip.offsetWidth : event.clientX + 12;
  tip.style.left = `${Math.max(0, left)}px`;
  tip.style.top = `${event.clientY + 12}px`;
}

// ---- start

function renderAll() {
  renderShape();
  renderSharding();
}

async function start() {
  explorer.timings.start = performance.now();
  compiled = await WebAssembly.compile(decode(WASM_BASE64));
  await wasm_bindgen({ module_or_path: compiled });
  explorer.timings.wasm = performance.now();
  readFragment();
  renderAll();
  explorer.timings.firstShape = performance.now();
  for (const id of ["shape-input", "sharding-input", "mesh-input", "devices-input", "reshard-input"]) {
    $(id).addEventListener("input", () => {
      renderAll();
      writeFragment();
    });
  }
  $("sharding-format").addEventListener("change", () => {
    changeFormat();
    renderAll();
    writeFragment();
  });
  window.addEventListener("hashchange", () => {
    readFragment();
    renderAll();
  });
  const zone = $("drop-zone");
  zone.addEventListener("dragover", (event) => {
    event.preventDefault();
    zone.classList.add("over");
  });
  zone.addEventListener("dragleave", () => zone.classList.remove("over"));
  zone.addEventListener("drop", (event) => {
    event.preventDefault();
    zone.classList.remove("over");
    readFiles(event.dataTransfer.files);
  });
  $("file-input").addEventListener("change", (event) => readFiles(event.target.files));
  $("buffer-search").addEventListener("input", renderBuffers);
  $("memory-timeline").addEventListener("mousemove", hoverTimeline);
  $("memory-timeline").addEventListener("mouseleave", () => ($("memory-tip").hidden = true));
  explorer.ready = true;
}

start().catch((error) => {
  say($("shape-error"), `the page could not start: ${error}`);
  explorer.failed = String(error);
});
