// The live table: one websocket per open table page.
// On every (re)connect it says hello with the cursor of the newest entry it shows; the server replays
// what was missed, in order, then streams new entries. A cursor is opaque (a keyed permutation of the
// entry's number, so a player cannot count the entries hidden from them): the page only compares
// cursors for equality, to drop an entry it already shows, and trusts the server's order. A page
// without a feed (a sheet, the encounter page) says so in its hello and hears only panel refreshes;
// after a reconnect it re-fetches every live panel, since refreshes sent while it was away are lost. It reconnects after any close it did not ask
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
  var lastCursor = live.getAttribute("data-cursor") || null;
  var everReady = false;
  var path = live.getAttribute("data-ws-path");
  var socket = null;
  var retryTimer = null;
  var attempt = 0;
  var stopped = false;
  var pingTimer = null;
  var pongTimer = null;

  function setStatus(text, tone) {
    // On every page, badge or not: tests and styles read whether the socket is live from here.
    live.setAttribute("data-status", tone === "success" ? "live" : "offline");
    if (!statusBadge) { return; }
    statusBadge.textContent = text;
    statusBadge.className = "badge table-status text-bg-" + tone;
  }

  function message(text, level) {
    if (window.tabletop && window.tabletop.showMessage) { window.tabletop.showMessage(text, level); }
  }

  function insertEntry(cursor, html) {
    if (typeof cursor !== "string" || !feed || typeof html !== "string") { return; }
    if (cursor === lastCursor || feed.querySelector('[data-cursor="' + CSS.escape(cursor) + '"]')) { return; }
    var template = document.createElement("template");
    template.innerHTML = html.trim();
    var node = template.content.firstElementChild;
    if (!node) { return; }
    feed.insertBefore(node, feed.firstElementChild);
    lastCursor = cursor;
    feed.setAttribute("data-cursor", lastCursor);
    var empty = document.getElementById("feed-empty");
    if (empty) { empty.remove(); }
    if (window.htmx) { window.htmx.process(node); }
    arrived(node);
  }
  // For static/js/notices.js: something new is in the page (an entry, a panel morphed in).
  function arrived(node) { document.dispatchEvent(new CustomEvent("tabletop:arrived", { detail: { node: node } })); }

  // A burst of changes (a roll that spends a token, an undo) makes one refresh per panel, not five.
  // A panel is any element with data-live-panel="name" and data-refresh-url; it is fetched over HTTP,
  // where the usual permission checks apply, so nothing private travels in the socket's frame.
  // One name's panels are fetched one round at a time: a change heard while a round is out fetches
  // them all again once it is in. Each request is the panel's own (htmx's source), never the body's:
  // htmx keeps one request per element and, for a second one, keeps only the newest waiting, so two
  // panels sharing the body would drop each other's refreshes (the encounter page's controls showed the
  // turn before last while its log, fetched last, was current).
  var refreshTimers = {};
  var refreshing = {};
  var refreshAgain = {};
  // What the gathered frames say a panel now shows, where they say it (campaigns.realtime.shows: the
  // digest of what every player sees of it): a panel whose data-shows is that already is not fetched.
  // One frame without a digest in the gathering fetches them all.
  var refreshShows = {};
  // When each name's gathering began (its first frame heard): a fetch started after it brings what the
  // frames announced, since the server sends a frame only once its change is committed.
  var refreshHeardAt = {};
  // The entries the gathered frames name, where every frame names one (a new entry made as a sheet's
  // character, for its recent rolls): a panel showing each of them already (its data-entry) is left be.
  var refreshEntries = {};
  // Each name's round while it is out, so a panel inside a merge on its way can wait for what it brings.
  var roundOut = {};
  // A round that never settles (a request htmx dropped without an event) must not stop the panel for good.
  var ROUND_LIMIT_MS = 20000;
  // One click's refresh frames leave the server back to back: bench/full_table.py saw each page's frames
  // of one click arrive within 2 ms of each other, on Redis too. Every millisecond waited here is added to
  // every click's time to settle; a frame that comes later costs at most one more round, never a stale panel.
  var REFRESH_GATHER_MS = 5;
  // Set once the page is being left (a plain form post, a link): a refresh fetched now could swallow
  // the message the next page is about to show.
  var leaving = false;
  window.addEventListener("beforeunload", function () {
    leaving = true;
    // Still here a few seconds on: nothing was left after all (a download, a cancelled navigation).
    setTimeout(function () { leaving = false; }, 3000);
  });
  window.addEventListener("pageshow", function () { leaving = false; });
  function refreshPanel(name, shows, entry) {
    if (!window.htmx) { return; }
    // A frame heard while the name's round is out is kept as it came, digest and entry, and heard again
    // once the round is in: the page may show by then what it announces (a fetch of the round served
    // after its change), and then fetches nothing for it.
    if (refreshing[name]) { (refreshAgain[name] = refreshAgain[name] || []).push([shows, entry]); return; }
    var first = !refreshTimers[name];
    refreshShows[name] = shows && (first || refreshShows[name]) ? shows : "";
    refreshEntries[name] = entry && (first || refreshEntries[name]) ? (refreshEntries[name] || []).concat([entry]) : null;
    if (!first) { return; }
    refreshHeardAt[name] = performance.now();
    refreshTimers[name] = setTimeout(function () {
      delete refreshTimers[name];
      var known = refreshShows[name];
      var heardAt = refreshHeardAt[name];
      var entries = refreshEntries[name];
      delete refreshShows[name];
      delete refreshHeardAt[name];
      delete refreshEntries[name];
      var round = [];
      var fetched = 0;
      var fetchOne = function (panel) {
        fetched += 1;
        if (panel.hasAttribute("data-live-merge")) { return mergePanel(panel); }
        return window.htmx.ajax("GET", panel.getAttribute("data-refresh-url"),
          { source: panel, target: panel, swap: "outerHTML", headers: { "X-Live-Refresh": "1" } });
      };
      document.querySelectorAll('[data-live-panel="' + CSS.escape(name) + '"]').forEach(function (panel) {
        if (known && panel.getAttribute("data-shows") === known) { return; }
        if (entries && showsEntries(panel, entries)) { return; }
        if (comesWithMerge(panel, heardAt)) { return; }
        // The merge holding this panel was already out when the frame came: it was asked for after its
        // own frame, so it may well bring the entry too. Decided once it is in.
        var merging = entries && mergeOut(panel);
        if (merging) {
          round.push(merging.then(function () {
            var now = panel.isConnected ? panel : document.querySelector('[data-live-panel="' + CSS.escape(name) + '"]');
            if (now && !showsEntries(now, entries)) { return fetchOne(now); }
          }));
          return;
        }
        round.push(fetchOne(panel));
      });
      refreshing[name] = true;
      var done = false;
      var over = function () {
        if (done) { return; }
        done = true;
        delete refreshing[name];
        delete roundOut[name];
        // The round is in: how many of the name's panels it fetched (none where each already showed it).
        document.dispatchEvent(new CustomEvent("tabletop:refreshed", { detail: { panel: name, fetched: fetched } }));
        var again = refreshAgain[name];
        delete refreshAgain[name];
        (again || []).forEach(function (heard) { refreshPanel(name, heard[0], heard[1]); });
      };
      setTimeout(over, ROUND_LIMIT_MS);
      roundOut[name] = Promise.allSettled(round).then(over);
    }, REFRESH_GATHER_MS);
  }

  function showsEntries(panel, entries) {
    return entries.every(function (cursor) { return panel.querySelector('[data-entry="' + CSS.escape(cursor) + '"]'); });
  }

  // The round of the merged panel holding this one, while it is out.
  function mergeOut(panel) {
    var outer = panel.parentElement && panel.parentElement.closest("[data-live-merge]");
    return outer ? roundOut[outer.getAttribute("data-live-panel")] : undefined;
  }

  // A panel inside a merged one (a sheet's recent rolls, inside the sheet) comes with it: where the
  // merged panel is fetched since this panel's frame was heard, or will be once its own gathering ends,
  // fetching this one too would bring nothing new (a roll that earns a token sends both frames).
  function comesWithMerge(panel, heardAt) {
    var outer = panel.parentElement && panel.parentElement.closest("[data-live-merge]");
    if (!outer) { return false; }
    var name = outer.getAttribute("data-live-panel");
    var skipped = refreshShows[name] && outer.getAttribute("data-shows") === refreshShows[name];
    if (refreshTimers[name] && !skipped) { return true; }
    if (refreshing[name] && refreshAgain[name]) { return true; }
    return outer.mergeStartedAt !== undefined && outer.mergeStartedAt > heardAt;
  }

  function refreshAllPanels() {
    var names = {};
    document.querySelectorAll("[data-live-panel]").forEach(function (panel) {
      names[panel.getAttribute("data-live-panel")] = true;
    });
    Object.keys(names).forEach(function (name) { refreshPanel(name); });
  }

  // A whole sheet changed elsewhere (the GM, an encounter, XP, an undo, another tab): fetch the page
  // again and morph it in (idiomorph, static/vendor/): every element is kept and only what changed is
  // written, so focus, listeners and htmx's own state survive. The parts the player is busy with are
  // left exactly as they are (beforeNodeMorphed returns false): an open in-place edit keeps its typed
  // text and the version it was opened at, so saving it is refused if its value moved on (the page's
  // #sheet-version is left alone for the same reason); an edit being fetched keeps the element its
  // answer will replace, so the click that opened it is never lost; a focused control, or one changed and
  // not yet sent, keeps its input; the roll buttons are priced again with the options this page chose.
  // This page's own state: the last roll's result, the chosen options, the prompts (a panel of their own).
  var KEEP = ["sheet-version", "roll-idempotency", "roll-result", "roll-buttons", "roll-options-panel",
              "sheet-requests"];
  var KEEP_SELECTOR = KEEP.map(function (id) { return "#" + id; }).join(", ") + ", [data-ws-path]";
  // Controls the player changed and has not sent yet (a trait picked, a number typed): focus may have
  // moved on to the form's button already, and a refresh landing then would undo the choice. Known by
  // the change events they fired, not by comparing with their defaults (a select whose first options
  // are disabled shows another one without anybody choosing it); forgotten once their form is sent.
  var unsent = new WeakSet();
  // Where an htmx request will put its answer (an in-place editor being fetched): kept until it is in.
  var awaited = new Set();
  function noteChange(event) {
    var control = event.target;
    if (control && control.matches && control.matches("input, select, textarea")) { unsent.add(control); }
  }
  function noteSent(form) {
    if (!form || !form.querySelectorAll) { return; }
    form.querySelectorAll("input, select, textarea").forEach(function (control) { unsent.delete(control); });
  }
  document.addEventListener("input", noteChange, true);
  document.addEventListener("change", noteChange, true);
  document.addEventListener("submit", function (event) { noteSent(event.target); }, true);
  document.body.addEventListener("htmx:beforeRequest", function (event) {
    var detail = event.detail || {};
    var elt = detail.elt;
    // A panel's own refresh sends nothing the player typed: what they changed in it stays unsent.
    if (isLiveRefresh(detail)) { return; }
    // Nor does a GET (the odds for a choice, an editor being opened): the choice is still only on this
    // page until its form is posted, and a refresh landing now must leave it (a program picked for a hack
    // went back to the first one when a refresh came just after its odds were asked for).
    var verb = detail.requestConfig && detail.requestConfig.verb;
    if (verb && verb !== "get") { noteSent(elt && elt.closest ? (elt.closest("form") || elt) : elt); }
    if (detail.target) {
      var target = detail.target;
      awaited.add(target);
      // afterRequest comes once the answer is swapped in, or the request failed: either way it is over.
      elt.addEventListener("htmx:afterRequest", function over() {
        elt.removeEventListener("htmx:afterRequest", over);
        awaited.delete(target);
      });
    }
  });
  function isLiveRefresh(detail) {
    var headers = (detail.requestConfig && detail.requestConfig.headers) || {};
    return Boolean(headers["X-Live-Refresh"]);
  }
  function busy(node) {
    if (node.nodeType !== Node.ELEMENT_NODE) { return false; }
    if (node.matches(KEEP_SELECTOR) || node.matches(".editing") || awaited.has(node)) { return true; }
    if (!node.matches("input, select, textarea")) { return false; }
    return node === document.activeElement || unsent.has(node);
  }
  // The same part in the fresh page: by id, an in-place field by its path, a control by its form and name.
  function counterpart(node, fresh) {
    if (node.id) { return fresh.querySelector("#" + CSS.escape(node.id)); }
    var path = node.getAttribute("data-path");
    if (node.matches(".editable") && path !== null) {
      return fresh.querySelector('.editable[data-path="' + CSS.escape(path) + '"]');
    }
    var form = node.form, name = node.getAttribute("name");
    if (!form || !name) { return null; }
    var action = form.getAttribute("action") || form.getAttribute("hx-post");
    var forms = form.id ? [fresh.querySelector("#" + CSS.escape(form.id))]
      : Array.prototype.filter.call(fresh.querySelectorAll("form"), function (other) {
        return (other.getAttribute("action") || other.getAttribute("hx-post")) === action;
      });
    var same = forms.length === 1 && forms[0] ? forms[0].querySelectorAll('[name="' + CSS.escape(name) + '"]') : [];
    return same.length === 1 ? same[0] : null;
  }
  // Each busy part takes the place of its counterpart in the fresh page, under an id both share for
  // this morph, so idiomorph pairs them even where the fresh page draws that part differently (an open
  // editor is a form, the fresh page has the value) and then leaves the part as it is.
  var morphId = 0;
  function morphKeeping(panel, fresh) {
    var kept = [];
    // The panel itself is the refresh's own target: only what it holds can be busy.
    Array.prototype.filter.call(panel.querySelectorAll("*"), busy).forEach(function (node) {
      if (kept.some(function (outer) { return outer.contains(node); })) { return; }
      kept.push(node);
      var other = counterpart(node, fresh);
      if (!other || other === fresh) { return; }
      var borrowed = !node.id;
      if (borrowed) { morphId += 1; node.id = "live-kept-" + morphId; }
      other.replaceWith(node.cloneNode(false));
      if (borrowed) { node.kept = true; }
    });
    var holds = function (node) { return kept.some(function (part) { return node === part || node.contains(part); }); };
    try {
      Idiomorph.morph(panel, fresh, {
        morphStyle: "outerHTML",
        callbacks: {
          beforeNodeMorphed: function (node) { return kept.indexOf(node) === -1; },
          // A part the fresh page no longer has stays rather than take the player's input with it.
          beforeNodeRemoved: function (node) { return !holds(node); }
        }
      });
    } finally {
      kept.forEach(function (node) { if (node.kept) { node.removeAttribute("id"); delete node.kept; } });
    }
    if (window.htmx) { window.htmx.process(panel); }
    arrived(panel);
  }
  // Any other panel's refresh is morphed in the same way where the page loads idiomorph, so a form being
  // filled in it (a turn's choices) keeps its part; htmx still swaps the answer's out-of-band parts
  // (the turn's announcement) and fires its events.
  document.body.addEventListener("htmx:beforeSwap", function (event) {
    var detail = event.detail || {};
    var panel = detail.target;
    if (!window.Idiomorph || !detail.shouldSwap || !isLiveRefresh(detail) || !panel ||
        !panel.hasAttribute("data-live-panel") || typeof detail.serverResponse !== "string") { return; }
    var template = document.createElement("template");
    template.innerHTML = detail.serverResponse;
    var fresh = template.content.querySelector(panel.id ? "#" + CSS.escape(panel.id) : "[data-live-panel]");
    if (!fresh || fresh.getAttribute("data-live-panel") !== panel.getAttribute("data-live-panel")) { return; }
    fresh.remove();
    morphKeeping(panel, fresh);
    detail.serverResponse = template.innerHTML;  // what is left: the out-of-band parts
    detail.swapOverride = "none";
  });
  function sameChoices(form, other) {
    if (!other) { return false; }
    var encode = function (f) { return new URLSearchParams(new FormData(f)).toString(); };
    return encode(form) === encode(other);
  }
  function mergePanel(panel) {
    if (leaving) { return Promise.resolve(); }
    panel.mergeStartedAt = performance.now();
    var url = panel.getAttribute("data-refresh-url");
    return fetch(url, { headers: { "Accept": "text/html" }, credentials: "same-origin" }).then(function (response) {
      if (!response.ok) { throw new Error("HTTP " + response.status); }
      return response.text();
    }).then(function (html) {
      if (leaving) { return; }
      var page = new DOMParser().parseFromString(html, "text/html");
      var fresh = page.querySelector('[data-live-panel="' + CSS.escape(panel.getAttribute("data-live-panel")) + '"]');
      if (!fresh || !panel.isConnected) { return; }
      // The roll buttons are this page's own (priced with its options). Where those options are the ones
      // the fresh page was drawn with, its buttons are already priced right and are morphed in; only
      // options the player chose cost the page another request to price them.
      var options = document.getElementById("roll-options");
      var buttons = document.getElementById("roll-buttons");
      var freshButtons = fresh.querySelector("#roll-buttons");
      var pricedAlike = options && buttons && freshButtons && sameChoices(options, page.getElementById("roll-options"));
      morphKeeping(panel, fresh);
      if (pricedAlike) {
        Idiomorph.morph(buttons, freshButtons, { morphStyle: "outerHTML" });
        if (window.htmx) { window.htmx.process(buttons); }
      } else if (options && window.htmx) {
        // The kept buttons are priced with the sheet as it was: not what the options' last answer drew
        // (app.js asks again only for a target that answer drew, [data-skip-repeat]).
        if (buttons) { delete buttons.drawnWith; }
        window.htmx.trigger(options, "change");
      }
      panel.setAttribute("data-refreshed", String(Date.now()));
    }).catch(function () {
      message("This sheet changed elsewhere and could not be fetched again; reload the page to see it.", "warning");
    });
  }

  function handle(data) {
    switch (data.type) {
      case "entry": insertEntry(data.cursor, data.html); break;
      // Backoff resets only once the server has caught the page up: a socket that opens and is closed
      // at once (Redis down) must not be retried at full speed.
      case "ready":
        attempt = 0;
        setStatus("Live", "success");
        if (everReady) { refreshAllPanels(); }
        everReady = true;
        break;
      // Only a feed reloads: a page without one has nothing to catch up by reloading, and may hold
      // typed text.
      case "reload": if (feed) { window.location.reload(); } break;
      case "refresh":
        refreshPanel(String(data.panel), data.shows ? String(data.shows) : "", data.entry ? String(data.entry) : "");
        break;
      default: break; // "pong": hearing anything already proves the line is alive
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
      ws.send(JSON.stringify({ type: "hello", cursor: lastCursor, feed: !!feed }));
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
