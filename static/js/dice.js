// Dice that land: a roll that arrives in the page tumbles into place instead of appearing at once.
//
// What it may read is the entry already in the page, and only its markup: the server renders each entry
// once per variant (campaigns/selectors.py entry_variant) and this viewer received the one it may see.
// A whole entry's dice (.die, each carrying its real face) tumble face-less for a moment, then show the
// face that was in the markup from the start; a blind roll's notice and the players' words of an NPC line
// carry ghost dice (.ghost-die, no face at all, the same two for every roll) that tumble and land blank.
// Nothing is fetched, no text is written or swapped, no face is made up: the animation is CSS keyframes
// (static/css/app.css, "Dice that land") switched on by the data-landing flag on the entry, so a screen
// reader hears the entry once, as it was inserted, and a face no one may see never reaches the page.
//
// An arrival is an entry whose cursor is new in its place (the feed, the sheet's #roll-result, a panel):
// a frame from the table's socket (table.js's "tabletop:arrived", also after a live panel is morphed in)
// or an htmx answer (a sheet's roll, a request answered, an L5R keep). What the page was drawn with, a
// page of older entries (.feed-more) and an entry drawn again in place (applied, a panel refreshed) do not
// land. The table page's dice box answers with the box only, so the roller's own roll lands from the same
// socket frame as everyone else's.
//
// Off under prefers-reduced-motion, and by the viewer's "Animate dice" switch (the table's feed header;
// remembered in localStorage, on until switched off).
(function () {
  "use strict";

  var SWITCH_KEY = "tabletop.dice.animate";
  var DICE = ".die, .ghost-die";
  // The CSS runs for at most 780 ms (a die's 700 and a stagger's 80); a tab in the background may never
  // fire animationend, so the flag is cleared by then in any case.
  var LANDED_WITHIN_MS = 1000;

  var reducedMotion = window.matchMedia ? window.matchMedia("(prefers-reduced-motion: reduce)") : null;
  var known = new Set();
  // This page's own choice, kept here too: a browser that refuses localStorage (private mode) still obeys it.
  var offHere = null;

  function switchedOff() {
    if (offHere !== null) { return offHere; }
    try { return window.localStorage.getItem(SWITCH_KEY) === "off"; } catch (ignored) { return false; }
  }
  function animating() {
    return !(reducedMotion && reducedMotion.matches) && !switchedOff();
  }

  // Where an entry is shown, and which: the same cursor in another place (the feed and a turn panel) is
  // another arrival, the same cursor drawn again in its place is not.
  function placeOf(entry) {
    var place = entry.parentElement && entry.parentElement.closest("[id]");
    return (place ? place.id : "") + " " + entry.getAttribute("data-cursor");
  }

  function entriesIn(root) {
    if (!root || !root.querySelectorAll) { return []; }
    var found = Array.prototype.slice.call(root.querySelectorAll(".feed-entry[data-cursor]"));
    if (root.matches && root.matches(".feed-entry[data-cursor]")) { found.unshift(root); }
    return found;
  }

  function land(entry) {
    var dice = entry.querySelectorAll(DICE);
    if (!dice.length) { return; }
    var waiting = dice.length;
    var timer = null;
    function landed() {
      entry.removeEventListener("animationend", one);
      clearTimeout(timer);
      entry.removeAttribute("data-landing");
    }
    function one(event) {
      if (event.animationName !== "die-tumble") { return; }
      waiting -= 1;
      if (waiting <= 0) { landed(); }
    }
    entry.addEventListener("animationend", one);
    timer = setTimeout(landed, LANDED_WITHIN_MS);
    entry.setAttribute("data-landing", "");
  }

  function take(root, arriving) {
    var moving = arriving && animating();
    entriesIn(root).forEach(function (entry) {
      if (!entry.isConnected) { return; }
      var key = placeOf(entry);
      if (known.has(key)) { return; }
      known.add(key);
      if (moving) { land(entry); }
    });
  }

  document.addEventListener("tabletop:arrived", function (event) {
    var node = event.detail && event.detail.node;
    take(node && node.isConnected ? node : document, true);
  });
  // Each element an htmx answer put in the page (its target's new content, an out-of-band part: htmx
  // fires afterSwap on every one), unless it is a page of older entries.
  document.addEventListener("htmx:afterSwap", function (event) {
    var config = event.detail && event.detail.requestConfig;
    var source = config && config.elt;
    var olderPage = Boolean(source && source.matches && source.matches(".feed-more"));
    take(event.target, !olderPage);
  });

  // The switch (the table page's feed header): on unless switched off; under reduced motion it is off
  // and says why, since the system's choice wins.
  function setUp() {
    var box = document.getElementById("dice-animate");
    if (!box) { return; }
    function show() {
      var reduced = Boolean(reducedMotion && reducedMotion.matches);
      box.disabled = reduced;
      box.checked = !reduced && !switchedOff();
      if (reduced) {
        box.setAttribute("title", "Off: this device asks for reduced motion");
      } else {
        box.removeAttribute("title");
      }
    }
    box.addEventListener("change", function () {
      offHere = !box.checked;
      try {
        if (box.checked) { window.localStorage.removeItem(SWITCH_KEY); } else { window.localStorage.setItem(SWITCH_KEY, "off"); }
      } catch (ignored) { /* private mode: offHere keeps the choice for this page */ }
      show();
    });
    if (reducedMotion && reducedMotion.addEventListener) { reducedMotion.addEventListener("change", show); }
    show();
  }

  take(document, false);  // what the page was drawn with has landed already
  setUp();
})();
