// Notices: what is addressed to the viewer (a whisper to them, a roll request, their turn) while the page
// is hidden (another tab, a minimised window) counts in the tab's title, "(2) Table · …", and on the table
// page's feed badge; the count clears when the page is in view again. Optional, each off until chosen
// (remembered in localStorage): a soft tone (Web Audio, no file) and a browser notification (asked for on
// the "Notify me" click, never on load) with generic words only, never a whisper's text or a result.
//
// What is a notice is the server's to say, in the markup: data-notice="whisper|request|turn", a key
// (data-notice-key) that stays the same across re-renders, data-author (its author, never a notice to
// themselves) and, for a whisper, data-whisper-to (the recipients' ids: the GM sees every whisper but
// only one to them is theirs). The viewer is <body data-user>. table.js says when something arrived
// ("tabletop:arrived", after an entry is inserted or a panel morphed in); every key is remembered once
// seen, so re-renders, morphs and replays never count twice, and what was there while the page was in
// view never counts at all.
(function () {
  "use strict";

  var viewer = document.body && document.body.getAttribute("data-user");
  if (!viewer) { return; }

  var SOUND_KEY = "tabletop.notices.sound";
  var NOTIFY_KEY = "tabletop.notices.notify";
  var WORDS = { whisper: "A whisper for you", request: "A roll request", turn: "Your turn" };

  var seen = new Set();
  var unread = 0;
  var baseTitle = document.title;
  var audio = null;

  function stored(key) {
    try { return window.localStorage.getItem(key) === "on"; } catch (ignored) { return false; }
  }
  function store(key, on) {
    try {
      if (on) { window.localStorage.setItem(key, "on"); } else { window.localStorage.removeItem(key); }
    } catch (ignored) { /* private mode: the choice lasts this page only */ }
  }
  function message(text, level) {
    if (window.tabletop && window.tabletop.showMessage) { window.tabletop.showMessage(text, level); }
  }

  function canNotify() { return "Notification" in window; }
  function notifyOn() {
    return stored(NOTIFY_KEY) && canNotify() && window.Notification.permission === "granted";
  }

  // The count: the title's prefix, the feed's badge (one text change per step, read once).
  function show() {
    document.title = unread ? "(" + unread + ") " + baseTitle : baseTitle;
    var badge = document.getElementById("feed-unread");
    if (!badge) { return; }
    // Empty, Bootstrap's badge is not drawn; its live region stays in place to be heard when filled.
    badge.textContent = unread ? unread + " new for you" : "";
    badge.setAttribute("data-count", String(unread));
  }

  function tone() {
    if (!audio || audio.state !== "running") { return; }
    var now = audio.currentTime;
    var osc = audio.createOscillator();
    var gain = audio.createGain();
    osc.type = "sine";
    osc.frequency.setValueAtTime(660, now);
    osc.frequency.exponentialRampToValueAtTime(880, now + 0.12);
    gain.gain.setValueAtTime(0.0001, now);
    gain.gain.exponentialRampToValueAtTime(0.06, now + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, now + 0.35);
    osc.connect(gain);
    gain.connect(audio.destination);
    osc.start(now);
    osc.stop(now + 0.4);
  }

  // Browsers start audio only after a gesture: the Sound toggle's click, or any click once it is on.
  function wakeAudio() {
    if (!stored(SOUND_KEY)) { return; }
    var Context = window.AudioContext || window.webkitAudioContext;
    if (!Context) { return; }
    try {
      if (!audio) { audio = new Context(); }
      if (audio.state === "suspended") { audio.resume(); }
    } catch (ignored) { audio = null; }
  }
  document.addEventListener("pointerdown", wakeAudio, true);
  document.addEventListener("keydown", wakeAudio, true);

  function notify(kind) {
    if (!notifyOn()) { return; }
    try {
      var note = new window.Notification(WORDS[kind], { body: baseTitle, tag: "tabletop-notice" });
      note.onclick = function () { window.focus(); note.close(); };
    } catch (ignored) { /* a browser that only notifies from a service worker */ }
  }

  function addressed(node) {
    var author = node.getAttribute("data-author");
    if (author && author === viewer) { return false; }
    if (node.getAttribute("data-notice") === "whisper") {
      var to = (node.getAttribute("data-whisper-to") || "").split(" ");
      return to.indexOf(viewer) !== -1;
    }
    return true;
  }

  function scan(root, counting) {
    if (!root || !root.querySelectorAll) { return; }
    var found = Array.prototype.slice.call(root.querySelectorAll("[data-notice]"));
    if (root.matches && root.matches("[data-notice]")) { found.unshift(root); }
    var kinds = [];
    found.forEach(function (node) {
      var kind = node.getAttribute("data-notice");
      var key = node.getAttribute("data-notice-key");
      if (!WORDS[kind] || !key || seen.has(key)) { return; }
      seen.add(key);
      if (counting && addressed(node)) { kinds.push(kind); }
    });
    if (!kinds.length) { return; }
    unread += kinds.length;
    show();
    if (stored(SOUND_KEY)) { tone(); }
    notify(kinds[0]);
  }

  function arrived(node) {
    // Only while the page is out of view: what arrives in view is seen already.
    scan(node && node.isConnected ? node : document, document.hidden);
  }

  document.addEventListener("tabletop:arrived", function (event) { arrived(event.detail && event.detail.node); });
  // Any other swap (a panel htmx replaced whole, a page of history): only its keys are new, so the page.
  document.addEventListener("htmx:afterSettle", function () { arrived(document); });
  document.addEventListener("visibilitychange", function () {
    if (document.hidden) { return; }
    scan(document, false);
    if (unread) { unread = 0; show(); }
  });

  // The toggles (the table page's feed header): off unless chosen; "Notify me" asks on its click only.
  function setUp() {
    var sound = document.getElementById("notice-sound");
    var notifyBox = document.getElementById("notice-notify");
    if (sound) {
      sound.checked = stored(SOUND_KEY);
      sound.addEventListener("change", function () {
        store(SOUND_KEY, sound.checked);
        if (sound.checked) { wakeAudio(); }
      });
    }
    if (notifyBox) {
      if (!canNotify()) {
        notifyBox.checked = false;
        notifyBox.disabled = true;
        notifyBox.setAttribute("title", "This browser has no notifications");
      } else {
        notifyBox.checked = notifyOn();
      }
      notifyBox.addEventListener("change", function () {
        if (!notifyBox.checked) { store(NOTIFY_KEY, false); return; }
        var once = false;
        var answered = function (permission) {
          if (once) { return; }
          once = true;
          var granted = permission === "granted";
          notifyBox.checked = granted;
          store(NOTIFY_KEY, granted);
          if (!granted) {
            message("This browser does not allow notifications from this site; its site settings can change that.", "warning");
          }
        };
        if (window.Notification.permission !== "default") { answered(window.Notification.permission); return; }
        var asked = window.Notification.requestPermission(answered);  // older browsers: the callback
        if (asked && asked.then) { asked.then(answered); }
      });
    }
  }

  scan(document, false);  // what the page was drawn with is not news
  setUp();
  show();
})();
