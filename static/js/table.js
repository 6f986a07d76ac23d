// The live table: one websocket per open table page.
// On every (re)connect it says hello with the newest seq it shows; the server replays what was missed,
// in order, then streams new entries. Entries at or below the newest seq shown are ignored, so a replay
// and a live broadcast can overlap without a duplicate. It reconnects after any close it did not ask
// for (1000 included: servers close idle sockets with it), with backoff, and a heartbeat notices a
// dead network that never reports a close; each ping also makes the server replay anything its channel
// layer failed to deliver (Redis down), so the page catches up by itself. Only 4403 ("not at this table"
// or "session ended") and 4409 (too many sockets) stop it; 1013 (Redis down) is retried like any other.
(function () {
  "use strict";

  // The table page's feed carries the socket's address; a sheet page has a hidden link instead and
  // listens only for panels to refresh (the GM's roll requests).
  var live = document.querySelector("[data-ws-path]");
  if (!live || !window.WebSocket) { return; }
  var feed = document.getElementById("feed");

  var CLOSE_NOT_SEATED = 4403;
  var CLOSE_TOO_MANY_SOCKETS = 4409;
  var PING_EVERY_MS = 25000;
  var PONG_WITHIN_MS = 10000;
  var MAX_DELAY_MS = 10000;

  var statusBadge = document.getElementById("table-status");
  var lastSeq = parseInt(live.getAttribute("data-last-seq"), 10) || 0;
  var path = live.getAttribute("data-ws-path");
  var socket = null;
  var retryTimer = null;
  var attempt = 0;
  var stopped = false;
  var pingTimer = null;
  var pongTimer = null;

  function setStatus(text, tone) {
    if (!statusBadge) { return; }
    statusBadge.textContent = text;
    statusBadge.className = "badge table-status text-bg-" + tone;
    live.setAttribute("data-status", tone === "success" ? "live" : "offline");
  }

  function message(text, level) {
    if (window.tabletop && window.tabletop.showMessage) { window.tabletop.showMessage(text, level); }
  }

  function insertEntry(seq, html) {
    if (typeof seq !== "number" || seq <= lastSeq) { return; }
    if (!feed) { lastSeq = seq; return; }
    var template = document.createElement("template");
    template.innerHTML = html.trim();
    var node = template.content.firstElementChild;
    if (!node) { return; }
    feed.insertBefore(node, feed.firstElementChild);
    lastSeq = seq;
    feed.setAttribute("data-last-seq", String(lastSeq));
    var empty = document.getElementById("feed-empty");
    if (empty) { empty.remove(); }
    if (window.htmx) { window.htmx.process(node); }
  }

  // A burst of changes (a roll that spends a token, an undo) makes one refresh per panel, not five.
  // A panel is any element with data-live-panel="name" and data-refresh-url; it is fetched over HTTP,
  // where the usual permission checks apply, so nothing private travels in the socket's frame.
  var refreshTimers = {};
  function refreshPanel(name) {
    if (!window.htmx || refreshTimers[name]) { return; }
    refreshTimers[name] = setTimeout(function () {
      delete refreshTimers[name];
      document.querySelectorAll('[data-live-panel="' + name + '"]').forEach(function (panel) {
        window.htmx.ajax("GET", panel.getAttribute("data-refresh-url"), { target: panel, swap: "outerHTML" });
      });
    }, 250);
  }

  function handle(data) {
    switch (data.type) {
      case "entry": insertEntry(data.seq, data.html); break;
      // Backoff resets only once the server has caught the page up: a socket that opens and is closed
      // at once (Redis down) must not be retried at full speed.
      case "ready": attempt = 0; setStatus("Live", "success"); break;
      case "reload": window.location.reload(); break;
      case "error": message(data.message, "warning"); break;
      case "refresh": refreshPanel(String(data.panel)); break;
      default: break; // "ok", "pong": hearing anything already proves the line is alive
    }
  }

  function stopHeartbeat() {
    clearInterval(pingTimer);
    clearTimeout(pongTimer);
    pingTimer = pongTimer = null;
  }

  function startHeartbeat(ws) {
    stopHeartbeat();
    pingTimer = setInterval(function () {
      if (ws.readyState !== WebSocket.OPEN) { return; }
      ws.send('{"type": "ping"}');
      if (!pongTimer) { pongTimer = setTimeout(function () { drop(ws); }, PONG_WITHIN_MS); }
    }, PING_EVERY_MS);
  }

  // Give up on a socket that went quiet without closing (a dead Wi-Fi, a laptop waking up).
  function drop(ws) {
    if (ws !== socket) { return; }
    socket = null;
    stopHeartbeat();
    ws.onclose = null;
    try { ws.close(); } catch (ignored) { /* already closing */ }
    setStatus("Reconnecting…", "warning");
    scheduleReconnect();
  }

  function scheduleReconnect() {
    if (stopped || retryTimer) { return; }
    var delay = Math.min(MAX_DELAY_MS, 500 * Math.pow(2, attempt));
    attempt += 1;
    // Jitter, so a restarted server is not hit by every table at the same instant.
    delay = delay * (0.75 + Math.random() * 0.5);
    retryTimer = setTimeout(connect, delay);
  }

  function connect() {
    clearTimeout(retryTimer);
    retryTimer = null;
    if (stopped || socket) { return; }
    var url = (window.location.protocol === "https:" ? "wss://" : "ws://") + window.location.host + path;
    var ws;
    try {
      ws = new WebSocket(url);
    } catch (error) {
      scheduleReconnect();
      return;
    }
    socket = ws;
    ws.onopen = function () {
      ws.send(JSON.stringify({ type: "hello", last_seq: lastSeq }));
      startHeartbeat(ws);
    };
    ws.onmessage = function (event) {
      if (ws !== socket) { return; }
      clearTimeout(pongTimer);
      pongTimer = null;
      var data;
      try { data = JSON.parse(event.data); } catch (error) { return; }
      if (data && typeof data === "object") { handle(data); }
    };
    ws.onclose = function (event) {
      if (ws !== socket) { return; }
      socket = null;
      stopHeartbeat();
      if (event.code === CLOSE_NOT_SEATED) {
        stopped = true;
        if (event.reason === "session ended") {
          setStatus("Signed out", "danger");
          message("Your session ended (logged out, or the password changed). Reload the page to sit down again.", "danger");
        } else {
          setStatus("Not at this table", "danger");
          message("You are no longer at this table.", "danger");
        }
        return;
      }
      if (event.code === CLOSE_TOO_MANY_SOCKETS) {
        stopped = true;
        setStatus("Too many tabs", "danger");
        message("This table is open in too many tabs or windows. Close some, then reload this page.", "warning");
        return;
      }
      setStatus("Reconnecting…", "warning");
      scheduleReconnect();
    };
  }

  // Back online or back to the tab: try at once instead of waiting out the backoff.
  function retryNow() {
    if (stopped) { return; }
    if (socket && socket.readyState === WebSocket.OPEN) {
      socket.send('{"type": "ping"}');
      var ws = socket;
      if (!pongTimer) { pongTimer = setTimeout(function () { drop(ws); }, PONG_WITHIN_MS); }
      return;
    }
    if (!socket) { attempt = 0; connect(); }
  }
  window.addEventListener("online", retryNow);
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") { retryNow(); }
  });

  // Keep typing rolls: after the dice box comes back from the server, the cursor is in it again.
  document.body.addEventListener("htmx:afterSettle", function (event) {
    var target = event.detail && event.detail.elt;
    if (target && target.id === "dice-box") {
      var input = document.getElementById("id_notation");
      if (input) { input.focus(); }
    }
  });

  connect();
})();
