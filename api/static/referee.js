// hubcam's referee page: plain JS over the service's JSON routes. The server judges everything;
// this page only sends what people do and shows what the server says.
"use strict";

const $ = (selector) => document.querySelector(selector);
const page = { code: null, token: null, game: null, analysis: null, frame: null, stream: null };

// Every answer as { ok, status, data }; a failure always has data.detail, a sentence to show, even when
// the service is down or answers something other than JSON.
async function call(method, path, body, isForm = false) {
  const headers = {};
  if (page.token) headers["Authorization"] = `Bearer ${page.token}`;
  if (body !== undefined && !isForm) headers["Content-Type"] = "application/json";
  let answer;
  try {
    answer = await fetch(path, { method, headers, body: isForm ? body : body === undefined ? undefined : JSON.stringify(body) });
  } catch (error) {
    return { ok: false, status: 0, data: { detail: `The service did not answer (${error.message}): is hubcam serve running?` } };
  }
  const data = answer.headers.get("content-type")?.includes("json") ? await answer.json() : await answer.text();
  if (answer.ok || typeof data?.detail === "string") return { ok: answer.ok, status: answer.status, data };
  return { ok: false, status: answer.status, data: { detail: `The service answered ${answer.status} ${answer.statusText}` } };
}

// Nothing fails quietly: an error no handler caught is shown where the person is looking.
window.addEventListener("unhandledrejection", (event) => say(`Something went wrong: ${event.reason?.message ?? event.reason}`, false));
window.addEventListener("error", (event) => say(`Something went wrong: ${event.message}`, false));

// ---- starting and rejoining ----------------------------------------------------------------

$("#new-game").addEventListener("submit", async (submit) => {
  submit.preventDefault();
  const form = new FormData(submit.target);
  const names = form.get("names").split(",").map((name) => name.trim()).filter(Boolean);
  const rules = { players: names.length, set: Number(form.get("set")) };
  for (const choice of document.querySelectorAll("#variants select")) rules[choice.name] = JSON.parse(choice.value);
  if (!names.length) return say("Players: give at least one name (names separated by commas).", false);
  const answer = await call("POST", "/games", { rules, names });
  if (!answer.ok) return say(answer.data.detail, false);
  remember(answer.data.game.id, answer.data.token);
  show(answer.data.game);
  say(`Game ${answer.data.game.id} started. Its token (to rejoin from another device): ${answer.data.token}`, true);
});

$("#rejoin").addEventListener("submit", async (submit) => {
  submit.preventDefault();
  const form = new FormData(submit.target);
  const code = form.get("code").trim().toUpperCase();
  if (!code) return say("Rejoin: type the game's code (6 letters and digits).", false);
  await join(code, form.get("token").trim() || localStorage.getItem(`hubcam:${code}`));
});

// Back to a game: shown whatever the token, and the token checked at once (GET /games/{id}/access), so a
// wrong one is said now rather than at the first play. Only a right token is remembered.
async function join(code, token) {
  page.code = code;
  page.token = token;
  const access = await call("GET", `/games/${code}/access`);
  if (!access.ok) return say(access.data.detail, false);
  if (access.data.can_write) remember(code, token);
  else {
    page.token = null;
    history.replaceState(null, "", `#${code}`);
  }
  if (!(await reload())) return;
  $("#read-only").hidden = access.data.can_write;
  if (!access.data.can_write) {
    say(token ? `Wrong token for game ${code}: you can follow the game here, not change it. Check the token and rejoin.`
      : `No token for game ${code} in this browser: you can follow the game here, not change it. Rejoin with its token.`, false);
  }
}

// The house rules (RULES.md 6) as the service lists them, each with its default first.
async function showVariants() {
  const answer = await call("GET", "/rules");
  if (!answer.ok) return;
  const choices = Object.entries(answer.data.variants).filter(([name]) => name !== "set").map(([name, variant]) => {
    const label = document.createElement("label");
    label.title = variant.help;
    label.textContent = name.replaceAll("_", " ");
    const select = document.createElement("select");
    select.name = name;
    for (const value of variant.values) {
      const shown = value === true ? "yes" : value === false ? "no" : String(value);
      select.append(new Option(shown, JSON.stringify(value)));
    }
    label.append(select);
    return label;
  });
  $("#variants").replaceChildren(...choices);
}
showVariants();

function remember(code, token) {
  page.code = code;
  page.token = token;
  if (token) localStorage.setItem(`hubcam:${code}`, token);
  history.replaceState(null, "", `#${code}`);
}

// The game as the service has it now; false (and said) when it cannot be read.
async function reload() {
  const answer = await call("GET", `/games/${page.code}`);
  if (!answer.ok) say(answer.data.detail, false);
  else show(answer.data);
  return answer.ok;
}

// After a write: the game redrawn first, then what the service said, so the message never comes
// before the state it describes.
async function reloadThenSay(text, good, where) {
  if ((await reload()) || !good) say(text, good, where);
}

// ---- the game --------------------------------------------------------------------------------

function currentRound() {
  return page.game.rounds[page.game.rounds.length - 1];
}

function trainName(owner) {
  return owner === "mexican" ? "Mexican train" : `${page.game.names[owner]}'s train`;
}

function show(game) {
  page.game = game;
  for (const id of ["#table", "#play", "#round-end", "#scores", "#game-badge"]) $(id).hidden = false;
  $("#start").hidden = true;
  $("#game-code").textContent = game.id;
  $("#board-link").href = `/games/${game.id}/board`;
  if (!$("#qr").src.endsWith(`/games/${game.id}/qr.svg`)) {
    $("#qr").src = `/games/${game.id}/qr.svg`;
    showBoardHint(game.id);
  }
  const round = currentRound();
  const state = round.state;
  $("#turn").textContent = state.round_over ? "(the round is over)" : `- ${game.names[state.turn]} (seat ${state.turn}) to play`;
  const trainChoice = $("#event select[name=train]");
  trainChoice.replaceChildren(...state.trains.map((train) => new Option(trainName(train.owner), train.owner)));
  trainChoice.value = String(state.turn); // most plays go on one's own train
  $("#trains").replaceChildren(...state.trains.map((train) => {
    const line = document.createElement("div");
    line.className = "train";
    const tiles = train.tiles.map(([a, b]) => `${a}-${b}`).join(" ");
    line.textContent = `${trainName(train.owner)}${train.marker ? " (marker)" : ""}: ${tiles || "-"}  open ${train.open_end}`;
    return line;
  }));
  $("#round-number").textContent = round.round + 1;
  showHands(round);
  showScores(game);
}

$("#event").addEventListener("submit", (submit) => {
  submit.preventDefault();
  const form = new FormData(submit.target);
  const train = form.get("train");
  send({ action: "play", tile: form.get("tile").trim(), train: train === "mexican" ? "mexican" : Number(train) });
});
for (const button of document.querySelectorAll("#event .action")) {
  button.addEventListener("click", () => send({ action: button.value }));
}

async function send(event) {
  const player = currentRound().state.turn;
  const answer = await call("POST", `/games/${page.code}/events`, { player, ...event });
  if (answer.ok) $("#event input[name=tile]").value = "";
  const reason = answer.data.verdict ? ` (${answer.data.verdict.reason})` : "";
  await reloadThenSay(answer.ok ? `${event.action.replace("_", " ")}: legal` : `Refused${reason}: ${answer.data.detail}`, answer.ok);
}

$("#undo").addEventListener("click", async () => {
  const answer = await call("POST", `/games/${page.code}/undo`);
  await reloadThenSay(answer.ok ? "The last event was taken back." : answer.data.detail, answer.ok);
});

// A message where the person is: the start form before a game, else the play section's verdict line
// (or the status line given, like the end of the round's).
function say(text, good, where = "#verdict") {
  const line = page.game ? $(where) : $("#start-status");
  line.textContent = text;
  line.classList.remove("legal", "illegal");
  line.classList.add(good ? "legal" : "illegal");
}

// ---- the table: camera or photo, checked by /analyze -------------------------------------------

$("#camera-on").addEventListener("click", async () => {
  try {
    page.stream = await navigator.mediaDevices.getUserMedia({ video: { width: { ideal: 1920 }, height: { ideal: 1080 } } });
  } catch (error) {
    return showAlerts([{ message: `No camera: ${error.message}. Upload a photo instead.` }]);
  }
  $("#camera").srcObject = page.stream;
  $("#camera").hidden = false;
  $("#overlay").hidden = true;
});

$("#table-photo").addEventListener("change", async () => {
  const file = $("#table-photo").files[0];
  if (!file) return;
  $("#table-photo").value = ""; // the same file chosen again is a change too
  page.analysis = null;
  try {
    page.frame = await createImageBitmap(file);
  } catch {
    // not a picture the browser can show: the service says what is wrong with it
    page.frame = null;
    $("#overlay").hidden = true;
    const answer = await check(file, file.name);
    if (answer?.ok) showAlerts([{ message: `${file.name}: this browser cannot show this photo, though the service read it.` }]);
    return;
  }
  stopCamera();
  draw();
  await check(file, file.name);
});

$("#check").addEventListener("click", async () => {
  const video = $("#camera");
  if (page.stream && video.videoWidth) {
    page.frame = await createImageBitmap(video);
    stopCamera();
  } else if (page.stream) {
    return showAlerts([{ message: "The camera shows nothing yet: wait a moment, or upload a photo." }]);
  }
  if (!page.frame) return showAlerts([{ message: "Nothing to check: turn on the camera (Use the camera) or upload a photo of the table first." }]);
  await check(await jpegOf(page.frame));
});

// The seat map from the players' markers by their slots (/calibrate/seats): the camera's frame, or the photo shown.
$("#seats-from-photo").addEventListener("click", async () => {
  const frame = await shownFrame();
  if (!frame) return sayWatch("No photo of the hub yet: turn on the camera (Use the camera) or upload a photo first.", false);
  const form = new FormData();
  form.append("photo", await jpegOf(frame), "hub.jpg");
  form.append("players", String(page.game.names.length));
  const answer = await call("POST", "/calibrate/seats", form, true);
  if (!answer.ok) return sayWatch(`No seat map from the photo: ${answer.data.detail}`, false);
  $("#seats").value = JSON.stringify(answer.data);
  const colours = answer.data.colours ?? {};
  const slots = Object.entries(answer.data.slots).map(
    ([angle, seat]) => `${page.game.names[seat] ?? `seat ${seat}`} at ${angle}°${colours[seat] ? ` (marker ${colours[seat]})` : ""}`,
  );
  sayWatch(`Seat map from the markers: ${slots.join(", ")}, the Mexican train at ${answer.data.mexican}°.`, true);
});

// The table's plane from the four table markers, or the hub and engine (/calibrate/table): checks read through it.
$("#table-from-photo").addEventListener("click", async () => {
  const frame = await shownFrame();
  if (!frame) return sayWatch("No photo of the table yet: turn on the camera (Use the camera) or upload a photo first.", false);
  const form = new FormData();
  form.append("photo", await jpegOf(frame), "table.jpg");
  form.append("tile_mm", $("#tile-mm").value || "50");
  const camera = $("#camera-part").value.trim();
  if (camera) form.append("camera", camera); // the service says what is wrong with it
  const answer = await call("POST", "/calibrate/table", form, true);
  if (!answer.ok) return sayWatch(`No table plane from the photo: ${answer.data.detail}`, false);
  $("#table-plane").value = JSON.stringify(answer.data);
  const how = answer.data.method === "markers" ? "the four markers" : "the hub and the tiles' length";
  sayWatch(
    `Table plane by ${how}: the camera is tilted ${answer.data.tilt_deg.toFixed(0)}° from straight down, a tile is ` +
      `${answer.data.tile_px.toFixed(0)} px long. Checks read the table through it.`,
    true,
  );
});

// The camera's lens from views of the printed board (/calibrate/camera): each view kept here until measured.
const boardViews = [];

$("#board-view").addEventListener("click", async () => {
  const frame = await shownFrame();
  if (!frame) return sayWatch("No view of the board: turn on the camera (Use the camera) or upload a photo of it first.", false);
  boardViews.push(await jpegOf(frame));
  $("#board-views").textContent = `${boardViews.length} view${boardViews.length === 1 ? "" : "s"}`;
});

$("#camera-from-views").addEventListener("click", async () => {
  if (boardViews.length < 3) return sayWatch(`${boardViews.length} views of the board: take at least 3 (15 to 20 is best) first.`, false);
  const form = new FormData();
  boardViews.forEach((view, index) => form.append("photos", view, `view-${index + 1}.jpg`));
  sayWatch(`Measuring the camera from ${boardViews.length} views...`, true);
  const answer = await call("POST", "/calibrate/camera", form, true);
  if (!answer.ok) return sayWatch(`No camera from the views: ${answer.data.detail}`, false);
  $("#camera-part").value = JSON.stringify(answer.data);
  const left = answer.data.photos_skipped.map((each) => `${each.photo}: ${each.reason}`);
  sayWatch(
    `Camera from ${answer.data.photos_used.length} of ${boardViews.length} views: reprojection error ` +
      `${answer.data.reprojection_error_px.toFixed(2)} px.${left.length ? ` Left out: ${left.join("; ")}.` : ""} ` +
      "Measure the table next.",
    true,
  );
  boardViews.length = 0;
  $("#board-views").textContent = "no views";
});

// The camera's frame where it is on, else the photo shown; null without either.
async function shownFrame() {
  const video = $("#camera");
  return page.stream && video.videoWidth ? await createImageBitmap(video) : page.frame;
}

async function jpegOf(frame) {
  const canvas = new OffscreenCanvas(frame.width, frame.height);
  canvas.getContext("2d").drawImage(frame, 0, 0);
  return canvas.convertToBlob({ type: "image/jpeg", quality: 0.92 });
}

function stopCamera() {
  if (page.stream) page.stream.getTracks().forEach((track) => track.stop());
  page.stream = null;
  $("#camera").hidden = true;
  $("#overlay").hidden = false;
}

async function check(photo, name = "table.jpg") {
  $("#check-status").textContent = "checking...";
  const form = new FormData();
  form.append("photo", photo, name);
  const plane = $("#table-plane").value.trim();
  if (plane) form.append("table", plane); // the service says what is wrong with it
  const answer = await call("POST", "/analyze", form, true);
  $("#check-status").textContent = answer.ok ? `${answer.data.timings_ms?.total?.toFixed(0) ?? "?"} ms` : "";
  if (!answer.ok) {
    showAlerts([{ message: `The photo was not checked: ${answer.data.detail}` }]);
    return answer;
  }
  page.analysis = answer.data;
  if (page.frame) draw();
  showAlerts(answer.data.flags, answer.data);
  return answer;
}

function showAlerts(flags, analysis) {
  const items = flags.map((flag) => {
    const item = document.createElement("li");
    item.textContent = flag.kind ? `${flag.kind.replace("_", " ")}: ${flag.message}` : flag.message;
    return item;
  });
  if (analysis && !flags.length) {
    const item = document.createElement("li");
    item.className = "fine";
    item.textContent = `No problem seen: ${analysis.trains.length} trains, ${analysis.tiles.length} tiles.`;
    items.push(item);
  }
  if (analysis?.advice) {
    // the tiles are seen too small for the flags to be trusted: say so first
    const item = Object.assign(document.createElement("li"), { className: "advice", textContent: `Note: ${analysis.advice}.` });
    items.unshift(item);
  }
  $("#alerts").replaceChildren(...items);
}

const COLOURS = ["#e53935", "#1e88e5", "#43a047", "#fb8c00", "#8e24aa", "#00acc1", "#f4511e", "#3949ab"];

function draw() {
  const canvas = $("#overlay");
  const frame = page.frame;
  canvas.width = frame.width;
  canvas.height = frame.height;
  const pen = canvas.getContext("2d");
  pen.drawImage(frame, 0, 0);
  const seen = page.analysis;
  if (!seen) return;
  const width = Math.max(2, frame.width / 400);
  pen.lineWidth = width;
  pen.font = `${Math.round(width * 7)}px sans-serif`;
  const centre = (tile) => tile.corners.reduce(([x, y], [u, v]) => [x + u / 4, y + v / 4], [0, 0]);
  const flagged = new Set(seen.flags.filter((flag) => flag.train != null)
    .map((flag) => seen.trains[flag.train]?.tile_ids[flag.index]));
  if (seen.hub) {
    pen.strokeStyle = "#ffd600";
    pen.beginPath();
    pen.arc(seen.hub.center[0], seen.hub.center[1], seen.hub.radius, 0, 2 * Math.PI);
    pen.stroke();
  }
  seen.trains.forEach((train, index) => {
    pen.strokeStyle = COLOURS[index % COLOURS.length];
    pen.beginPath();
    const points = [seen.hub ? seen.hub.center : centre(seen.tiles[train.tile_ids[0]]), ...train.tile_ids.map((id) => centre(seen.tiles[id]))];
    points.forEach(([x, y], at) => (at ? pen.lineTo(x, y) : pen.moveTo(x, y)));
    pen.stroke();
  });
  seen.tiles.forEach((tile, id) => {
    const atFault = flagged.has(id);
    pen.strokeStyle = atFault ? "#ff1744" : tile.reason ? "#ff9100" : "#e040fb";
    pen.lineWidth = atFault ? width * 2.5 : width;
    pen.beginPath();
    tile.corners.forEach(([x, y], at) => (at ? pen.lineTo(x, y) : pen.moveTo(x, y)));
    pen.closePath();
    pen.stroke();
    if (atFault) {
      pen.fillStyle = "rgba(255, 23, 68, .35)";
      pen.fill();
    }
    pen.lineWidth = width;
    const [x, y] = centre(tile);
    const text = tileLabel(tile);
    const textWidth = pen.measureText(text).width;
    pen.fillStyle = "rgba(0,0,0,.6)";
    pen.fillRect(x - textWidth / 2 - width, y - width * 6, textWidth + 2 * width, width * 9);
    pen.fillStyle = "white";
    pen.fillText(text, x - textWidth / 2, y);
  });
  pen.strokeStyle = "#00e5ff";
  for (const marker of seen.markers) {
    pen.beginPath();
    marker.corners.forEach(([x, y], at) => (at ? pen.lineTo(x, y) : pen.moveTo(x, y)));
    pen.closePath();
    pen.stroke();
  }
}

// A tile's label on the overlay, as the command line writes it: its pips, with a "?" after pips the
// reader is unsure of (a face-down or blurred tile: not counted), or "?" alone where none were read.
function tileLabel(tile) {
  if (!tile.pips) return "?";
  return `${tile.pips[0]}-${tile.pips[1]}${tile.reason ? "?" : ""}`;
}

// A misread tile is corrected on the overlay itself: click it, type what it shows.
$("#overlay").addEventListener("click", (click) => {
  const seen = page.analysis;
  if (!seen) return;
  const canvas = $("#overlay");
  const box = canvas.getBoundingClientRect();
  const x = ((click.clientX - box.left) * canvas.width) / box.width;
  const y = ((click.clientY - box.top) * canvas.height) / box.height;
  const id = seen.tiles.findIndex((tile) => inside([x, y], tile.corners));
  if (id < 0) return;
  const tile = seen.tiles[id];
  const typed = prompt("What does this tile show? (like 12-5)", tile.pips ? tile.pips.join("-") : "");
  const match = typed && typed.trim().match(/^(\d+)-(\d+)$/);
  if (!match) return;
  tile.pips = [Number(match[1]), Number(match[2])];
  delete tile.reason;
  $("#event input[name=tile]").value = `${match[1]}-${match[2]}`;
  draw();
});

function inside([x, y], corners) {
  let within = false;
  for (let i = 0, j = corners.length - 1; i < corners.length; j = i++) {
    const [xi, yi] = corners[i];
    const [xj, yj] = corners[j];
    if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) within = !within;
  }
  return within;
}

// ---- the end of a round: each leftover hand from a photo, reviewed ----------------------------

function showHands(round) {
  const rows = page.game.names.map((name, seat) => {
    const hand = round.hands[seat];
    const row = document.createElement("div");
    row.className = "hand";
    row.innerHTML = `<strong></strong>
      <label class="button">Photo of the hand <input type="file" accept="image/jpeg,image/png" hidden></label>
      <label>Tiles <input class="tiles" size="28" placeholder="12-5, 3-3"></label>
      <button type="button">Save</button>
      <span class="total"></span><span class="quiet note"></span>`;
    row.querySelector("strong").textContent = name;
    row.querySelector(".tiles").value = hand ? hand.tiles.join(", ") : "";
    row.querySelector(".total").textContent = hand ? `${hand.total} pips` : "";
    row.querySelector(".note").textContent = handNote(hand);
    row.querySelector("input[type=file]").addEventListener("change", async (change) => {
      const file = change.target.files[0];
      if (!file) return;
      row.querySelector(".note").textContent = "reading...";
      const form = new FormData();
      form.append("photo", file);
      const answer = await call("POST", `/games/${page.code}/rounds/${round.round}/hands/${seat}`, form, true);
      await reload();
      if (!answer.ok) sayAtHand(seat, `${file.name}: not read: ${answer.data.detail}`, false);
    });
    row.querySelector("button").addEventListener("click", async () => {
      const tiles = row.querySelector(".tiles").value.split(/[\s,]+/).filter(Boolean);
      const answer = await call("PUT", `/games/${page.code}/rounds/${round.round}/hands/${seat}`, { tiles });
      if (answer.ok) return reloadThenSay(`${name}'s hand saved: ${answer.data.total} pips`, true);
      sayAtHand(seat, `Not saved: ${answer.data.detail}`, false); // the typed tiles stay, to be corrected
    });
    return row;
  });
  $("#hands").replaceChildren(...rows);
}

function handNote(hand) {
  if (!hand) return "";
  if (hand.reviewed) return "checked";
  const unsure = hand.uncertain;
  return `read from the photo${unsure ? `; ${unsure} ${unsure === 1 ? "tile" : "tiles"} unsure: add ${unsure === 1 ? "it" : "them"}` : ""}`;
}

// A message on a seat's row of the end of the round, where its photo or tiles were given.
function sayAtHand(seat, text, good) {
  const note = $("#hands").children[seat]?.querySelector(".note");
  if (!note) return say(text, good);
  note.textContent = text;
  note.classList.add(good ? "legal" : "illegal");
}

$("#next-round").addEventListener("click", async () => {
  const answer = await call("POST", `/games/${page.code}/rounds`, {});
  const dealt = answer.ok && `Round ${answer.data.round + 1}: the engine is ${answer.data.deal.engine}-${answer.data.deal.engine}`;
  if (answer.ok) $("#round-status").textContent = "";
  await reloadThenSay(answer.ok ? dealt : answer.data.detail, answer.ok, answer.ok ? "#verdict" : "#round-status");
});

// The QR code's address names this computer only (localhost) unless hubcam serve was told the address
// phones reach it at: say how, next to the code.
async function showBoardHint(code) {
  const hint = $("#qr-hint");
  hint.hidden = true;
  const answer = await call("GET", `/games/${code}/board-url`);
  if (!answer.ok || !answer.data.loopback) return;
  const port = new URL(answer.data.url).port || "80";
  hint.replaceChildren(
    `The code leads to ${new URL(answer.data.url).host}, this computer only: no phone can open it. To serve phones on the same network, start `,
    Object.assign(document.createElement("code"), { textContent: `hubcam serve --host 0.0.0.0 --public-url http://THIS-COMPUTER:${port}` }),
    " (THIS-COMPUTER: its name or address on the network).",
  );
  hint.hidden = false;
}

function showScores(game) {
  const sheet = game.scoresheet;
  const head = `<tr><th>round</th>${game.names.map(() => "<th></th>").join("")}</tr>`;
  $("#scoresheet").innerHTML = head;
  game.names.forEach((name, seat) => { $("#scoresheet").rows[0].cells[seat + 1].textContent = name; });
  const addRow = (label, cells) => {
    const row = $("#scoresheet").insertRow();
    row.insertCell().textContent = label;
    cells.forEach((cell) => { row.insertCell().textContent = cell; });
  };
  sheet.rounds.forEach((round) => addRow(`${round.round + 1} (${round.engine}-${round.engine})`, round.scores));
  addRow("total", sheet.totals);
  addRow("place", sheet.places);
}

// ---- watching live: the camera's frames to the watcher over a WebSocket, its events back ----------
// One frame in flight at a time (the service answers each), so a slow re-read never builds a queue.

const WATCH_FPS = 5;
const WATCH_WIDTH = 1280;
const watching = { socket: null, timer: null, busy: false };

$("#watch").addEventListener("click", () => (watching.socket ? stopWatching("Stopped watching.", true) : startWatching()));

async function startWatching() {
  if (!page.token) return sayWatch("Watching proposes plays for the game's log: rejoin with the game's token first.", false);
  let seats = null;
  const typed = $("#seats").value.trim();
  if (typed) {
    try {
      seats = JSON.parse(typed);
    } catch (error) {
      return sayWatch(`Seat map: not JSON (${error.message}); leave it empty to watch without one.`, false);
    }
  }
  if (!page.stream) {
    try {
      page.stream = await navigator.mediaDevices.getUserMedia({ video: { width: { ideal: 1920 }, height: { ideal: 1080 } } });
    } catch (error) {
      return sayWatch(`No camera: ${error.message}. Watching needs a camera.`, false);
    }
    $("#camera").srcObject = page.stream;
  }
  $("#camera").hidden = false;
  $("#overlay").hidden = false;
  $(".view").classList.add("watching");
  $("#alerts").replaceChildren();
  page.analysis = null;
  const socket = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/games/${page.code}/watch`);
  watching.socket = socket;
  watching.busy = false;
  $("#watch").textContent = "Stop watching";
  sayWatch("Connecting to the watcher...", true);
  socket.addEventListener("open", () => socket.send(JSON.stringify({ token: page.token, seats })));
  socket.addEventListener("message", (message) => onWatchMessage(JSON.parse(message.data)));
  socket.addEventListener("close", (close) => {
    if (watching.socket !== socket) return; // stopped here: already said
    const why = close.reason || "the connection to the service was lost";
    stopWatching(`The live watch stopped: ${why} (code ${close.code}). Watch live again to go on.`, false);
  });
}

function stopWatching(text, good) {
  const socket = watching.socket;
  watching.socket = null;
  clearInterval(watching.timer);
  if (socket && socket.readyState <= WebSocket.OPEN) socket.close(1000, "stopped on the page");
  $("#watch").textContent = "Watch live";
  $(".view").classList.remove("watching");
  sayWatch(text, good);
}

function onWatchMessage(message) {
  if (message.type === "ready") {
    sayWatch(`Watching${message.seats ? "" : " (no seat map: plays come without their train)"}.`, true);
    watching.timer = setInterval(sendFrame, 1000 / WATCH_FPS);
  } else if (message.type === "frame") {
    watching.busy = false;
    $("#check-status").textContent = `frame ${message.frame}: ${message.ms.toFixed(0)} ms`;
  } else if (message.type === "seen") {
    page.analysis = message.analysis;
    if (page.frame) draw();
  } else if (message.type === "event") {
    onWatchEvent(message.event);
  } else if (message.type === "advice") {
    sayWatch(`Watching, but ${message.message}.`, false);
  } else if (message.type === "error") {
    watching.busy = false;
    sayWatch(message.message, false);
  }
}

// A frame of the camera, at most WATCH_WIDTH across, as JPEG; drawn at once with the latest reading.
async function sendFrame() {
  const video = $("#camera");
  const socket = watching.socket;
  if (watching.busy || !socket || socket.readyState !== WebSocket.OPEN || !video.videoWidth) return;
  watching.busy = true;
  const scale = Math.min(1, WATCH_WIDTH / video.videoWidth);
  const width = Math.round(video.videoWidth * scale);
  const height = Math.round(video.videoHeight * scale);
  let frame;
  try {
    frame = await createImageBitmap(video, { resizeWidth: width, resizeHeight: height });
  } catch {
    watching.busy = false; // the camera's frame not to be had this once (a camera starting up): the next tick tries again
    return;
  }
  const canvas = new OffscreenCanvas(width, height);
  canvas.getContext("2d").drawImage(frame, 0, 0);
  const blob = await canvas.convertToBlob({ type: "image/jpeg", quality: 0.85 });
  if (watching.socket !== socket) return;
  socket.send(blob);
  page.frame = frame;
  draw();
}

function onWatchEvent(event) {
  if (event.event === "play") return propose(event);
  if (event.event === "state") return;
  const item = document.createElement("li");
  item.textContent = event.kind ? `${event.kind.replace("_", " ")}: ${event.message}` : `${event.event}: ${event.message}`;
  $("#alerts").append(item);
}

// A play the watcher saw, proposed for the game's log: Confirm sends it as it is (the service's referee
// judges it), Correct puts it in the play form to be edited and sent from there.
function propose(play) {
  const item = document.createElement("li");
  const name = page.game.names[play.player] ?? `seat ${play.player}`;
  const where = play.train == null ? "a train the seat map does not name" : trainName(play.train);
  const verdict = play.legal === false ? ` - illegal (${play.reason}): ${play.message}` : "";
  const text = Object.assign(document.createElement("span"), { textContent: `${name} played ${play.tile} on ${where}${verdict}` });
  const confirm = Object.assign(document.createElement("button"), { type: "button", textContent: "Confirm", className: "confirm" });
  const correct = Object.assign(document.createElement("button"), { type: "button", textContent: "Correct", className: "correct" });
  const note = Object.assign(document.createElement("span"), { className: "note" });
  confirm.disabled = play.train == null;
  if (play.legal === false) item.classList.add("illegal");
  item.dataset.tile = play.tile;
  confirm.addEventListener("click", async () => {
    confirm.disabled = true;
    const answer = await call("POST", `/games/${page.code}/events`, { player: play.player, action: "play", tile: play.tile, train: play.train });
    if (answer.ok) {
      item.classList.add("confirmed");
      item.replaceChildren(text, Object.assign(note, { textContent: "in the log" }));
      return reloadThenSay(`${play.tile}: legal, in the log`, true);
    }
    confirm.disabled = false;
    const reason = answer.data.verdict ? ` (${answer.data.verdict.reason})` : "";
    note.textContent = `Refused${reason}: ${answer.data.detail}`;
  });
  correct.addEventListener("click", () => {
    $("#event input[name=tile]").value = play.tile;
    if (play.train != null) $("#event select[name=train]").value = String(play.train);
    item.remove();
    $("#event input[name=tile]").focus();
  });
  item.append(text, confirm, correct, note);
  $("#proposals").append(item);
}

function sayWatch(text, good) {
  const line = $("#watch-status");
  line.textContent = text;
  line.classList.remove("legal", "illegal");
  line.classList.add(good ? "legal" : "illegal");
}

// ---- back to the game in the address, if any ---------------------------------------------------

if (location.hash.length > 1) {
  const code = location.hash.slice(1).toUpperCase();
  join(code, localStorage.getItem(`hubcam:${code}`));
}
