// The table link's page: a seat's munchkin on a phone, or the board on a TV.
//
// Plain JavaScript that old TV browsers run too (no build step, no framework, no
// optional chaining): it reads the secret from the code's address (after the "#",
// never sent to the host in a request) or from this browser's storage, opens one
// WebSocket, shows the whole view it is sent and then applies the changes. Presses
// are numbered; one not answered yet is sent again after a reconnect, and the host
// answers it without applying it twice.
(function () {
  "use strict";

  var KEY_STORE = "companion-table-key";
  var RETRY_MS = [300, 1000, 2000, 4000, 8000];
  var AWAY_AFTER_MS = 6000; // no welcome for this long: say what to try
  var OFF_RETRY_MS = 15000; // the link was turned off: look again now and then
  var COLOUR = /^#[0-9a-fA-F]{6}$/;

  var words = {};
  try {
    words = JSON.parse(document.getElementById("words").textContent);
  } catch (e) {
    words = {};
  }
  function w(key) {
    return words[key] || key;
  }

  var screen = document.getElementById("screen");
  var toastBox = document.getElementById("toast");

  // -- the secret -------------------------------------------------------------------
  function keyFromAddress() {
    var match = /(?:^#|&)k=([A-Za-z0-9_-]{32})(?:&|$)/.exec(location.hash || "");
    return match ? match[1] : null;
  }
  function stored(name, value) {
    try {
      if (value === undefined) return window.localStorage.getItem(name);
      if (value === null) window.localStorage.removeItem(name);
      else window.localStorage.setItem(name, value);
    } catch (e) {
      // Private browsing may have no storage: the address still holds the secret.
    }
    return null;
  }
  function forgetKey() {
    stored(KEY_STORE, null);
    if (window.history && history.replaceState) {
      history.replaceState(null, "", location.pathname);
    }
    key = null;
  }
  var key = keyFromAddress();
  if (key) {
    stored(KEY_STORE, key);
  } else {
    key = stored(KEY_STORE);
    if (key && window.history && history.replaceState) {
      // Reloads keep working even where storage is cleared with the tab.
      history.replaceState(null, "", location.pathname + "#k=" + key);
    }
  }

  function randomId() {
    var bytes = new Uint8Array(12);
    if (window.crypto && crypto.getRandomValues) crypto.getRandomValues(bytes);
    else for (var i = 0; i < bytes.length; i++) bytes[i] = Math.floor(Math.random() * 256);
    var out = "";
    for (var j = 0; j < bytes.length; j++) out += ("0" + bytes[j].toString(16)).slice(-2);
    return out;
  }

  // -- what the page holds ------------------------------------------------------------
  var pageId = randomId();
  var socket = null;
  var role = null;
  var view = null;
  var version = -1;
  var nextId = 1;
  var pending = []; // presses sent and not answered yet, oldest first
  var failures = 0;
  var retryTimer = null;
  var awayTimer = null;
  var stopped = false;
  var linkOff = false;

  // -- little DOM helpers -------------------------------------------------------------
  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }
  function clear(node) {
    while (node.firstChild) node.removeChild(node.firstChild);
  }
  function safeColour(c) {
    return COLOUR.test(c || "") ? c : "#9a9a9a";
  }
  var toastTimer = null;
  function toast(text, bad) {
    toastBox.textContent = text;
    toastBox.className = "toast shown" + (bad ? " bad" : "");
    if (toastTimer) clearTimeout(toastTimer);
    toastTimer = setTimeout(function () {
      toastBox.className = "toast";
    }, 4000);
  }

  function notice(kind, title, text) {
    seatParts = null;
    screen.className = "notice " + kind;
    clear(screen);
    screen.appendChild(el("h1", "notice-title", title));
    if (text) screen.appendChild(el("p", "notice-text", text));
    document.body.className = "";
  }

  // -- the seat's page ----------------------------------------------------------------
  // Built once and then updated in place: a finger on a button must not lose its tap
  // because the page was redrawn under it.
  var seatParts = null;

  function stepper(kind, label) {
    var box = el("section", "counter " + kind);
    var minus = el("button", "step minus", "\u2212");
    minus.setAttribute("aria-label", w(kind + "_down"));
    minus.setAttribute("data-press", kind + "_down");
    var plus = el("button", "step plus", "+");
    plus.setAttribute("aria-label", w(kind + "_up"));
    plus.setAttribute("data-press", kind + "_up");
    var middle = el("div", "value-box");
    var number = el("div", "value");
    number.id = kind + "-value";
    middle.appendChild(number);
    middle.appendChild(el("div", "label", label));
    box.appendChild(minus);
    box.appendChild(middle);
    box.appendChild(plus);
    return { box: box, minus: minus, plus: plus, value: number };
  }

  function buildSeat() {
    clear(screen);
    var parts = {};
    parts.head = el("header", "who");
    parts.name = el("div", "name");
    parts.swatch = el("span", "swatch");
    parts.nameText = el("span", "name-text");
    parts.name.appendChild(parts.swatch);
    parts.name.appendChild(parts.nameText);
    parts.head.appendChild(parts.name);
    var strength = el("div", "strength");
    strength.appendChild(el("span", "strength-label", w("strength")));
    parts.strength = el("span", "strength-value");
    parts.strength.id = "strength-value";
    strength.appendChild(parts.strength);
    parts.head.appendChild(strength);
    parts.traits = el("div", "traits");
    parts.head.appendChild(parts.traits);
    screen.appendChild(parts.head);
    parts.level = stepper("level", w("level"));
    parts.gear = stepper("gear", w("gear"));
    var counters = el("div", "counters");
    counters.appendChild(parts.level.box);
    counters.appendChild(parts.gear.box);
    screen.appendChild(counters);

    parts.roll = el("section", "roll");
    parts.roll.id = "roll";
    parts.roll.appendChild(el("div", "roll-title", w("roll_title")));
    parts.rollText = el("div", "roll-text");
    parts.rollDetail = el("div", "roll-detail");
    parts.roll.appendChild(parts.rollText);
    parts.roll.appendChild(parts.rollDetail);
    var go = el("button", "roll-button", w("roll_button"));
    go.setAttribute("data-roll", "host");
    parts.roll.appendChild(go);
    parts.roll.appendChild(el("div", "roll-or", w("roll_faces")));
    var faces = el("div", "faces");
    for (var face = 1; face <= 6; face++) {
      var b = el("button", "face", face);
      b.setAttribute("data-roll", String(face));
      b.setAttribute("aria-label", String(face));
      faces.appendChild(b);
    }
    parts.roll.appendChild(faces);
    screen.appendChild(parts.roll);

    parts.fight = el("div", "fight");
    parts.fight.id = "fight";
    parts.fightRole = el("div", "fight-role");
    parts.fightText = el("div", "fight-text");
    parts.fight.appendChild(parts.fightRole);
    parts.fight.appendChild(parts.fightText);
    screen.appendChild(parts.fight);

    // The kill: the fighter calls it; while its wait runs anyone may interfere.
    parts.kill = el("section", "kill");
    parts.kill.id = "kill";
    parts.killText = el("div", "kill-text");
    parts.killText.id = "kill-text";
    parts.killButton = el("button", "kill-button", w("kill_button"));
    parts.killButton.setAttribute("data-press", "kill");
    parts.waitButton = el("button", "wait-button", w("wait_button"));
    parts.waitButton.setAttribute("data-press", "wait");
    parts.kill.appendChild(parts.killText);
    parts.kill.appendChild(parts.killButton);
    parts.kill.appendChild(parts.waitButton);
    screen.appendChild(parts.kill);

    var status = el("footer", "status");
    parts.turn = el("div", "turn");
    parts.turn.id = "turn";
    parts.phase = el("div", "phase");
    status.appendChild(parts.turn);
    status.appendChild(parts.phase);
    // On the player's own turn: move it on from the phone (the host may too).
    parts.moves = el("div", "moves");
    parts.nextPhase = el("button", "move next-phase", w("next_phase"));
    parts.nextPhase.setAttribute("data-press", "next_phase");
    parts.endTurn = el("button", "move end-turn", w("end_turn"));
    parts.endTurn.setAttribute("data-press", "next_turn");
    parts.moves.appendChild(parts.nextPhase);
    parts.moves.appendChild(parts.endTurn);
    status.appendChild(parts.moves);
    screen.appendChild(status);
    return parts;
  }

  // The kill's countdown, counted down here from the seconds the host sent (a page and
  // the host share no clock); the host says when it stops or ends.
  var killTimer = null;
  var killEnds = 0;
  var killNode = null;
  function followKill(kill, node) {
    killNode = node;
    if (!kill) {
      if (killTimer) clearInterval(killTimer);
      killTimer = null;
      setText(node, "");
      return;
    }
    var ends = Date.now() + kill.left * 1000;
    if (!killTimer || Math.abs(ends - killEnds) > 300) killEnds = ends;
    if (!killTimer) killTimer = setInterval(tickKill, 100);
    tickKill();
  }
  function tickKill() {
    var left = Math.max(0, (killEnds - Date.now()) / 1000);
    if (killNode) setText(killNode, w("kill_in").replace("{s:.1f}", left.toFixed(1)));
  }

  function show(node, on) {
    node.style.display = on ? "" : "none";
  }
  function setText(node, text) {
    text = text === undefined || text === null ? "" : String(text);
    if (node.textContent !== text) node.textContent = text;
  }
  function dim(button, allowed) {
    if (allowed) button.classList.remove("dim");
    else button.classList.add("dim");
  }

  function renderSeat() {
    var v = view;
    if (!v) {
      seatParts = null;
      return notice("waiting", w("no_game"), "");
    }
    if (v.absent) {
      seatParts = null;
      return notice("waiting", v.absent, "");
    }
    document.body.className = "seat-page";
    if (!seatParts || seatParts.head.parentNode !== screen) seatParts = buildSeat();
    var parts = seatParts;
    // While the roll is offered its panel needs the room: Level and Gear share one row.
    screen.className =
      "seat" +
      (v.dead ? " dead" : "") +
      (v.yours ? " yours" : "") +
      (v.roll || v.fight || v.kill ? " with-extra" : "") +
      (v.roll ? " compact" : "");
    var colour = safeColour(v.colour);
    parts.head.style.borderColor = colour;
    parts.swatch.style.backgroundColor = colour;
    setText(parts.nameText, v.name);
    setText(parts.strength, v.strength);
    setText(parts.traits, (v.dead ? w("dead") + " \u00b7 " : "") + v.traits);
    var can = v.can || {};
    setText(parts.level.value, v.level);
    setText(parts.gear.value, v.gear);
    dim(parts.level.plus, can.level_up);
    dim(parts.level.minus, can.level_down);
    dim(parts.gear.plus, can.gear_up);
    dim(parts.gear.minus, can.gear_down);
    show(parts.roll, !!v.roll);
    if (v.roll) {
      setText(parts.rollText, v.roll.text);
      setText(parts.rollDetail, v.roll.detail);
    } else {
      parts.roll.classList.remove("rolling");
    }
    show(parts.fight, !!v.fight);
    if (v.fight) {
      parts.fight.className = "fight " + (v.fight.winning ? "winning" : "losing");
      setText(parts.fightRole, v.fight.role);
      setText(parts.fightText, v.fight.text);
    }
    setText(parts.turn, v.won ? w("you_won") : v.yours ? w("your_turn") : v.turn);
    setText(parts.phase, v.phase);
    show(parts.moves, !!v.yours && !v.won);
    var counting = !!v.kill;
    show(parts.kill, counting || !!can.kill);
    show(parts.killButton, !counting && !!can.kill);
    show(parts.waitButton, counting);
    show(parts.killText, counting);
    followKill(v.kill, parts.killText);
    markBusy();
  }

  function markBusy() {
    var busy = {};
    for (var i = 0; i < pending.length; i++) busy[pending[i].press || "roll"] = true;
    var buttons = screen.querySelectorAll("[data-press]");
    for (var j = 0; j < buttons.length; j++) {
      var b = buttons[j];
      var name = b.getAttribute("data-press");
      if (busy[name]) b.classList.add("busy");
      else b.classList.remove("busy");
    }
  }

  // -- the board page -----------------------------------------------------------------
  function renderBoard() {
    var v = view;
    if (!v) return notice("waiting", w("no_game"), "");
    document.body.className = "board-page";
    screen.className = "board" + (v.finished ? " finished" : "");
    clear(screen);
    var top = el("header", "board-top");
    var headline = el("h1", "headline", v.headline);
    headline.id = "headline";
    top.appendChild(headline);
    top.appendChild(el("div", "detail", v.detail));
    screen.appendChild(top);

    var spaces = Math.max(1, v.spaces | 0);
    var track = el("div", "track");
    var columns = [];
    for (var s = 1; s <= spaces; s++) {
      var space = el("div", "space" + (s === spaces ? " goal" : ""));
      space.appendChild(el("div", "space-number", s));
      var tokens = el("div", "tokens");
      space.appendChild(tokens);
      track.appendChild(space);
      columns.push(tokens);
    }
    var players = v.players || [];
    for (var p = 0; p < players.length; p++) {
      var pl = players[p];
      var at = Math.min(spaces, Math.max(1, pl.level | 0)) - 1;
      var token = el("div", "token" + ringOf(pl), pl.dead ? "\u2620" : pl.short);
      token.style.backgroundColor = pl.dead ? "#a9a7a1" : safeColour(pl.colour);
      token.style.color = pl.ink === "#ffffff" ? "#ffffff" : "#111214";
      token.setAttribute("data-seat", String(p));
      token.setAttribute("data-level", String(pl.level));
      token.title = pl.name;
      columns[at].appendChild(token);
    }
    screen.appendChild(track);
    boardColumns = columns;

    if (v.fight) {
      var fight = el("div", "fight-line " + (v.fight.winning ? "winning" : "losing"), v.fight.text);
      fight.id = "fight-line";
      screen.appendChild(fight);
    }
    var killLine = el("div", "kill-line");
    killLine.id = "kill-text";
    show(killLine, !!v.kill);
    screen.appendChild(killLine);
    followKill(v.kill, killLine);
    var legend = el("div", "legend");
    for (var q = 0; q < players.length; q++) {
      var who = players[q];
      var entry = el("div", "entry");
      var bar = el("span", "bar");
      bar.style.backgroundColor = safeColour(who.colour);
      entry.appendChild(bar);
      // On a phone the track gives way to this list: each name with its token and its
      // Level, big (app.css shows one or the other by the window's width).
      var disc = el("span", "entry-token" + ringOf(who), who.dead ? "\u2620" : who.short);
      disc.style.backgroundColor = who.dead ? "#a9a7a1" : safeColour(who.colour);
      disc.style.color = who.ink === "#ffffff" ? "#ffffff" : "#111214";
      entry.appendChild(disc);
      var texts = el("div", "entry-texts");
      var marks = [];
      if (who.turn) marks.push("\u25b6");
      if (who.winner) marks.push("\u265b");
      if (who.dead) marks.push("\u2620");
      var name = el("div", "entry-name", who.name + (marks.length ? "  " + marks.join(" ") : ""));
      name.setAttribute("data-name", who.name);
      texts.appendChild(name);
      texts.appendChild(el("div", "entry-detail", who.detail));
      entry.appendChild(texts);
      var level = el("span", "entry-level", who.level);
      var progress = el("span", "entry-progress");
      progress.style.backgroundColor = safeColour(who.colour);
      progress.style.width = (100 * Math.min(spaces, Math.max(1, who.level | 0))) / spaces + "%";
      entry.appendChild(level);
      entry.appendChild(progress);
      legend.appendChild(entry);
    }
    screen.appendChild(legend);
    layTokens();
  }

  // A token's ring says whose turn it is, who fights and who won.
  function ringOf(pl) {
    return (
      (pl.turn ? " turn" : "") +
      (pl.fighting ? " fighting" : "") +
      (pl.dead ? " dead" : "") +
      (pl.winner ? " winner" : "")
    );
  }

  // Tokens on one Level share its space: as big as the space allows for that many (up
  // to a size readable across a room), in a grid of the best shape, never overlapping
  // and never outside it. Laid out again whenever the window changes size.
  var boardColumns = [];
  function layTokens() {
    var biggest = Math.max(24, Math.round(window.innerHeight * 0.15));
    for (var i = 0; i < boardColumns.length; i++) {
      var box = boardColumns[i];
      var tokens = box.children;
      var n = tokens.length;
      if (!n) continue;
      var rect = box.getBoundingClientRect();
      var width = Math.floor(rect.width);
      var height = Math.floor(rect.height);
      if (!width || !height) continue; // the track is not shown (a phone shows the list)
      var cell = 0;
      var across = 1;
      for (var c = 1; c <= n; c++) {
        var rows = Math.ceil(n / c);
        var size = Math.min(width / c, height / rows);
        if (size > cell) {
          cell = size;
          across = c;
        }
      }
      cell = Math.floor(Math.min(cell, biggest));
      var down = Math.ceil(n / across);
      var ring = Math.max(2, Math.round(cell * 0.07));
      var gap = Math.max(1, Math.round(cell * 0.04));
      var disc = Math.max(0, cell - 2 - 2 * (ring + gap));
      var left = Math.floor((width - across * cell) / 2);
      var top = Math.floor((height - down * cell) / 2);
      for (var t = 0; t < n; t++) {
        var row = Math.floor(t / across);
        var col = t % across;
        var inRow = row === down - 1 ? n - row * across : across;
        var token = tokens[t];
        token.style.position = "absolute";
        token.style.width = cell - 2 + "px";
        token.style.height = cell - 2 + "px";
        token.style.left = left + Math.floor(((across - inRow) * cell) / 2) + col * cell + 1 + "px";
        token.style.top = top + row * cell + 1 + "px";
        token.style.borderWidth = ring + "px";
        token.style.padding = gap + "px";
        token.style.fontSize = Math.max(9, Math.round(disc * 0.4)) + "px";
      }
    }
  }
  window.addEventListener("resize", function () {
    if (role === "board" && view) layTokens();
  });

  function render() {
    if (role === "board") renderBoard();
    else if (role === "seat") renderSeat();
  }

  // -- changes from the host ------------------------------------------------------------
  function applyPatch(changes) {
    for (var i = 0; i < changes.length; i++) {
      var path = changes[i][0];
      var value = changes[i][1];
      if (!path.length) {
        view = value;
        continue;
      }
      var target = view;
      for (var j = 0; j < path.length - 1 && target; j++) target = target[path[j]];
      if (target && typeof target === "object") target[path[path.length - 1]] = value;
    }
  }

  function onMessage(event) {
    var msg;
    try {
      msg = JSON.parse(event.data);
    } catch (e) {
      return;
    }
    if (!msg || typeof msg !== "object") return;
    if (msg.t === "welcome") {
      role = msg.role;
      view = msg.view;
      version = msg.v;
      failures = 0;
      linkOff = false;
      if (awayTimer) clearTimeout(awayTimer);
      awayTimer = null;
      render();
      for (var i = 0; i < pending.length; i++) send(pending[i]);
    } else if (msg.t === "patch") {
      applyPatch(msg.set || []);
      version = msg.v;
      render();
    } else if (msg.t === "ack") {
      var left = [];
      for (var k = 0; k < pending.length; k++) if (pending[k].id !== msg.id) left.push(pending[k]);
      pending = left;
      if (msg.why) toast(msg.why, !msg.ok);
      if (role === "seat") markBusy();
    } else if (msg.t === "error") {
      toast(msg.why || "?", true);
    } else if (msg.t === "ask") {
      stopped = true;
      forgetKey();
      notice("ask", w("ask_title"), w("ask_text"));
    } else if (msg.t === "bye") {
      if (msg.why === "taken" || msg.why === "new_game") {
        stopped = true;
        pending = [];
        forgetKey();
        if (msg.why === "taken") notice("taken", w("taken_title"), w("taken_text"));
        else notice("new-game", w("new_game_title"), w("new_game_text"));
      } else if (msg.why === "off") {
        linkOff = true;
        notice("off", w("off_title"), w("off_text"));
      }
    }
  }

  // -- the connection -----------------------------------------------------------------
  function send(msg) {
    if (socket && socket.readyState === 1) {
      try {
        socket.send(JSON.stringify(msg));
      } catch (e) {
        // Closing: the press stays pending and goes again after the reconnect.
      }
    }
  }

  function connect() {
    if (stopped || !key) return;
    if (socket && (socket.readyState === 0 || socket.readyState === 1)) return;
    if (retryTimer) clearTimeout(retryTimer);
    retryTimer = null;
    var scheme = location.protocol === "https:" ? "wss://" : "ws://";
    var ws;
    try {
      ws = new WebSocket(scheme + location.host + "/ws");
    } catch (e) {
      return later();
    }
    socket = ws;
    if (!awayTimer && !linkOff) {
      awayTimer = setTimeout(function () {
        awayTimer = null;
        if (!stopped && !(socket && socket.readyState === 1 && role)) {
          notice("away", w("away_title"), w("away_text"));
        }
      }, AWAY_AFTER_MS);
    }
    ws.onopen = function () {
      var langs = navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language || ""];
      ws.send(JSON.stringify({ t: "hello", key: key, page: pageId, langs: Array.prototype.slice.call(langs, 0, 8) }));
    };
    ws.onmessage = onMessage;
    ws.onclose = function () {
      if (socket === ws) socket = null;
      later();
    };
    ws.onerror = function () {
      // onclose follows and schedules the next try.
    };
  }

  function later() {
    if (stopped || retryTimer) return;
    failures += 1;
    var wait = linkOff ? OFF_RETRY_MS : RETRY_MS[Math.min(failures - 1, RETRY_MS.length - 1)];
    retryTimer = setTimeout(function () {
      retryTimer = null;
      connect();
    }, wait * (0.8 + Math.random() * 0.4));
  }

  function now() {
    // Woken up, back online or back in view: try at once instead of waiting for the timer.
    if (stopped || !key) return;
    if (!socket || socket.readyState > 1) {
      if (retryTimer) clearTimeout(retryTimer);
      retryTimer = null;
      connect();
    }
  }

  // -- presses --------------------------------------------------------------------------
  function press(what) {
    var msg = { t: "press", id: nextId++, press: what };
    pending.push(msg);
    markBusy();
    send(msg);
  }
  function roll(face) {
    var msg = { t: "roll", id: nextId++, face: face };
    pending.push(msg);
    var box = document.getElementById("roll");
    if (box) box.classList.add("rolling");
    send(msg);
  }

  document.addEventListener("click", function (event) {
    var target = event.target;
    while (target && target !== document && !(target.getAttribute && (target.getAttribute("data-press") || target.getAttribute("data-roll")))) {
      target = target.parentNode;
    }
    if (!target || target === document) return;
    var what = target.getAttribute("data-press");
    if (what) return press(what);
    var face = target.getAttribute("data-roll");
    if (face) roll(face === "host" ? null : parseInt(face, 10));
  });
  document.addEventListener("visibilitychange", function () {
    if (!document.hidden) now();
  });
  window.addEventListener("online", now);
  window.addEventListener("pageshow", now);

  // Where the browser allows it (a secure context), keep the page for when the host
  // cannot be reached, so the advice still shows.
  if ("serviceWorker" in navigator && window.isSecureContext) {
    try {
      navigator.serviceWorker.register("sw.js").catch(function () {});
    } catch (e) {
      // No service worker: the page works the same without one.
    }
  }

  // Another code opened in this tab changes only the part after the "#", which loads
  // nothing: the page follows it to that seat (or the board) as a fresh page would, and
  // this browser keeps the new code.
  function follow(found) {
    key = found;
    stored(KEY_STORE, key);
    var old = socket;
    socket = null;
    if (old) {
      old.onclose = null;
      old.onmessage = null;
      old.onerror = null;
      try {
        old.close();
      } catch (e) {
        // Already closing.
      }
    }
    if (retryTimer) clearTimeout(retryTimer);
    if (awayTimer) clearTimeout(awayTimer);
    if (killTimer) clearInterval(killTimer);
    retryTimer = awayTimer = killTimer = null;
    pageId = randomId();
    role = null;
    view = null;
    version = -1;
    pending = [];
    failures = 0;
    stopped = false;
    linkOff = false;
    notice("connecting", w("connecting"), "");
    connect();
  }
  window.addEventListener("hashchange", function () {
    var found = keyFromAddress();
    if (found && found !== key) follow(found);
  });

  if (!key) {
    notice("ask", w("ask_title"), w("ask_text"));
  } else {
    notice("connecting", w("connecting"), "");
    connect();
  }

  // For the tests and the curious: what the page holds right now.
  window.companionTable = {
    state: function () {
      return { role: role, view: view, version: version, pending: pending.length, connected: !!(socket && socket.readyState === 1) };
    },
  };
})();
