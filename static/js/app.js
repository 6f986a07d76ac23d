// Glue for htmx: make refused requests (4xx/5xx) visible instead of silently ignored.
(function () {
  "use strict";

  // htmx fires its first htmx:load on <body> once it has processed the whole page: from then on its
  // controls answer a click (templates/base.html, data-wiring).
  document.addEventListener("htmx:load", function (event) {
    if (event.target === document.body) { document.documentElement.removeAttribute("data-wiring"); }
  });

  function showMessage(text, level) {
    var box = document.getElementById("messages");
    if (!box) { return; }
    var alert = document.createElement("div");
    alert.className = "alert alert-" + (level || "danger") + " alert-dismissible";
    alert.setAttribute("role", "alert");
    alert.textContent = text;
    var close = document.createElement("button");
    close.type = "button";
    close.className = "btn-close";
    close.setAttribute("data-bs-dismiss", "alert");
    close.setAttribute("aria-label", "Close");
    alert.appendChild(close);
    box.appendChild(alert);
  }

  document.addEventListener("htmx:responseError", function (event) {
    var xhr = event.detail.xhr;
    var text = (xhr.getResponseHeader("Content-Type") || "").indexOf("text/plain") === 0 && xhr.responseText
      ? xhr.responseText
      : "The server refused that (" + xhr.status + "). Reload the page and try again.";
    showMessage(text);
  });
  // Over the rate limit (campaigns/limits.py): a view that answers with its own HTML (the dice box, the
  // chat box) shows the message inside it; the limiter's plain-text 429 swaps nothing (HX-Reswap: none),
  // so its message goes beside the control that sent the request, until the wait is over.
  document.addEventListener("htmx:afterRequest", function (event) {
    var xhr = event.detail.xhr;
    if (!xhr || xhr.status !== 429 || xhr.getResponseHeader("HX-Reswap") !== "none") { return; }
    var text = xhr.responseText || "Too many requests. Wait a moment and try again.";
    var elt = event.detail.elt;
    var anchor = elt && elt.closest ? elt.closest("form") || elt : null;
    if (!anchor || !anchor.isConnected) { showMessage(text, "warning"); return; }
    var next = anchor.nextElementSibling;
    var note = next && next.classList.contains("rate-limited") ? next : document.createElement("div");
    note.className = "rate-limited small text-danger";
    note.setAttribute("role", "alert");
    note.textContent = text;
    anchor.insertAdjacentElement("afterend", note);
    var seconds = Number(xhr.getResponseHeader("Retry-After")) || 5;
    setTimeout(function () { if (note.textContent === text) { note.remove(); } }, seconds * 1000);
  });
  document.addEventListener("htmx:sendError", function () {
    showMessage("Could not reach the server. Check your connection and try again.", "warning");
  });

  // In-place editing: Escape puts the value back as it was, leaving the field (blur) saves it, and so
  // does Ctrl+Enter in a text area (where Enter starts a new line).
  function cancelEdit(form) {
    form.dataset.cancelled = "1";
    htmx.ajax("GET", form.dataset.cancelUrl, { source: form, target: form, swap: "outerHTML" });
  }
  document.addEventListener("keydown", function (event) {
    var form = event.target.closest && event.target.closest("form[data-inline-edit]");
    if (form && event.key === "Escape") {
      event.preventDefault();
      cancelEdit(form);
    } else if (form && event.key === "Enter" && (event.ctrlKey || event.metaKey) &&
               event.target.tagName === "TEXTAREA" && !form.dataset.submitting) {
      event.preventDefault();
      form.dataset.submitting = "1";
      htmx.trigger(form, "submit");
    }
  });
  document.addEventListener("focusout", function (event) {
    var form = event.target.closest && event.target.closest("form[data-inline-edit]");
    if (!form || form.dataset.cancelled || form.dataset.submitting) { return; }
    if (event.relatedTarget && form.contains(event.relatedTarget)) { return; }
    form.dataset.submitting = "1";
    htmx.trigger(form, "submit");
  });
  document.addEventListener("change", function (event) {
    var form = event.target.closest && event.target.closest("form[data-inline-edit]");
    if (form && event.target.tagName === "SELECT" && !form.dataset.submitting) {
      form.dataset.submitting = "1";
      htmx.trigger(form, "submit");
    }
  });
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (form.matches && form.matches("form[data-inline-edit]")) { form.dataset.submitting = "1"; }
  }, true);
  // A sheet's plain forms (rest, a new trait, ...) carry the version the page was drawn at, marked
  // data-sheet-version; the page's own saves since then moved #sheet-version on. Send the newer of the
  // two, so the player's own edit does not make their next form look stale.
  document.addEventListener("submit", function (event) {
    var current = document.getElementById("sheet-version");
    if (!current || !event.target.querySelectorAll) { return; }
    event.target.querySelectorAll("input[data-sheet-version]").forEach(function (input) {
      input.value = String(Math.max(Number(input.value) || 0, Number(current.value) || 0));
    });
  }, true);

  // Keyboard users keep their place. A roll disables its button while it runs (and may redraw the
  // buttons), a save swaps the form for the value: either drops focus on <body>. Put it back on the same
  // button, or on the value just saved, unless the user has moved on to something else meanwhile.
  var refocus = null;
  function focusLost() {
    return !document.activeElement || document.activeElement === document.body || !document.activeElement.isConnected;
  }
  document.addEventListener("htmx:beforeRequest", function (event) {
    var elt = event.detail.elt;
    if (!elt || !elt.closest) { return; }
    var button = elt.closest("button[data-roll-key]");
    var form = elt.closest("form[data-inline-edit]");
    if (button) {
      var key = button.dataset.rollKey;
      refocus = { until: Date.now() + 5000 };
      refocus.find = function () { return document.querySelector('button[data-roll-key="' + CSS.escape(key) + '"]'); };
    } else if (form) {
      var path = form.dataset.path;
      refocus = { until: Date.now() + 5000 };
      refocus.find = function () {
        // A refused edit comes back as the form (its input focused by autofocus); a save as the value.
        return document.querySelector('.editable[data-path="' + CSS.escape(path) + '"] .editable-value, ' +
          'form.editable[data-path="' + CSS.escape(path) + '"] [name="value"]');
      };
    } else if (elt.matches("form[hx-post]")) {
      // Any other form (a saved roll, a turn's Attack, Defend or Lock in): its button again once the answer
      // is in, found by the form's address and action (one address serves every action of a turn); when
      // the answer has no such form any more, the part it answered into, which holds the result.
      var post = elt.getAttribute("hx-post");
      var actionOf = function (form) { var input = form.querySelector('input[name="action"]'); return input ? input.value : ""; };
      var action = actionOf(elt);
      var into = event.detail.target && event.detail.target.id;
      refocus = { until: Date.now() + 5000 };
      refocus.find = function () {
        var same = Array.prototype.filter.call(document.querySelectorAll("form[hx-post]"), function (form) {
          return form.getAttribute("hx-post") === post && actionOf(form) === action;
        });
        var again = same.length ? same[0].querySelector('button[type="submit"], button:not([type])') : null;
        if (again && !again.disabled) { return again; }
        var result = into && document.getElementById(into);
        if (!result || result.hidden) { return null; }
        if (!result.hasAttribute("tabindex")) { result.setAttribute("tabindex", "-1"); }
        return result;
      };
    }
  });
  // The button may have been redrawn (out of band) and the form swapped out, so no event on the element
  // that started it is sure to reach the document: try after each step of any request instead.
  function tryRefocus() {
    if (!refocus) { return; }
    setTimeout(function () {  // after htmx has re-enabled the button it disabled
      if (!refocus) { return; }
      if (Date.now() > refocus.until) { refocus = null; return; }
      var target = refocus.find();
      if (target && !target.disabled && focusLost()) {
        refocus.target = target;  // kept a few seconds: a live refresh of the sheet may redraw it again
        target.focus();
      }
    }, 0);
  }
  ["htmx:afterRequest", "htmx:afterSettle", "htmx:load"].forEach(function (name) {
    document.addEventListener(name, tryRefocus);
  });
  // The user moved on (or a refused edit's input took focus): leave focus where it is now.
  document.addEventListener("focusin", function (event) {
    if (refocus && event.target !== document.body && event.target !== refocus.target) { refocus = null; }
  });

  // An edit opens with the caret after the current value, ready to add to it or rub it out.
  function caretToEnd(input) {
    if (!input || typeof input.value !== "string") { return; }
    if (input.type === "number") {
      // Number inputs have no selection API; setting the value again leaves the caret at its end.
      var value = input.value;
      input.value = "";
      input.value = value;
    } else if (input.setSelectionRange) {
      input.setSelectionRange(input.value.length, input.value.length);
    }
  }
  htmx.onLoad(function (content) {
    var forms = content.matches && content.matches("form[data-inline-edit]") ? [content] : content.querySelectorAll ? content.querySelectorAll("form[data-inline-edit]") : [];
    Array.prototype.forEach.call(forms, function (form) {
      var input = form.querySelector('input[name="value"], textarea[name="value"]');
      if (!input) { return; }
      if (document.activeElement !== input) { input.focus(); }
      caretToEnd(input);
    });
  });

  // What was typed before htmx arrived (a slow phone) or put back by the browser (back, reload) was
  // heard by no live preview: the builders' pools and points, the sheet's roll options, a turn's odds.
  // Once htmx has set up the page, each such field says it changed, and its preview asks the server.
  // Only fields a preview listens to (an hx-trigger on change or input): elsewhere a value a script
  // set at load (a saved preference) is no one's typing.
  function changedSinceDrawn(field) {
    if (field.type === "checkbox" || field.type === "radio") { return field.checked !== field.defaultChecked; }
    if (field.tagName === "SELECT") {
      var options = Array.prototype.slice.call(field.options);
      if (field.multiple) { return options.some(function (option) { return option.selected !== option.defaultSelected; }); }
      var drawn = options.map(function (option) { return option.defaultSelected; }).lastIndexOf(true);
      // None marked: the browser shows the first one that may be chosen.
      if (drawn === -1) { drawn = options.findIndex(function (option) { return !option.disabled; }); }
      return field.selectedIndex !== drawn;
    }
    return field.type !== "file" && field.value !== field.defaultValue;
  }
  htmx.onLoad(function (content) {
    if (content !== document.body) { return; }
    var resent = [];
    content.querySelectorAll("[hx-trigger]").forEach(function (live) {
      if (!/\b(change|input)\b/.test(live.getAttribute("hx-trigger"))) { return; }
      var fields = Array.prototype.slice.call(live.querySelectorAll("input, select, textarea"));
      if (live.matches("input, select, textarea")) { fields.push(live); }
      fields.forEach(function (field) {
        if (!changedSinceDrawn(field) || resent.indexOf(field) !== -1) { return; }
        resent.push(field);
        field.dispatchEvent(new Event("change", { bubbles: true }));
      });
    });
    // Read by the browser tests: on a page nobody typed into, nothing may look typed (a field wrongly
    // taken as changed would hold back the sheet's live refresh as unsaved work).
    window.tabletop.resentAtLoad = resent.map(function (field) { return field.id || field.name; });
  });

  // A form that redraws what the user clicks next as its fields are typed in ([data-skip-repeat]: the
  // sheet's roll options redraw the roll buttons) hears each value twice: as it is typed ("input") and
  // again as the field is left ("change"), which is the first thing a click on one of those buttons
  // does. That second request asks for what is drawn already, and its redraw can land between the
  // press and the release of the button, whose click is then lost. So the form does not ask again
  // while its target is the very one its answer for the same values drew (a live refresh that redraws
  // the target leaves one drawn without them, which is asked for).
  function skipsRepeats(element) { return element && element.hasAttribute && element.hasAttribute("data-skip-repeat"); }
  document.addEventListener("htmx:configRequest", function (event) {
    var drawn = event.detail.target;
    if (!skipsRepeats(event.detail.elt) || !drawn) { return; }
    if (drawn.drawnWith === new URLSearchParams(event.detail.formData).toString()) {
      event.preventDefault();
      window.tabletop.repeatsSkipped = (window.tabletop.repeatsSkipped || 0) + 1;  // read by the browser tests
    }
  });
  document.addEventListener("htmx:afterSwap", function (event) {
    var asked = event.detail.requestConfig;  // the event is the drawn element's, the request the form's
    if (asked && skipsRepeats(asked.elt)) { event.target.drawnWith = new URLSearchParams(asked.formData).toString(); }
  });

  // Copy buttons ([data-copy] names the input): the clipboard API where the page is a secure context
  // (https, localhost), else the input's selection copied, as a LAN game over plain http needs.
  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest("button[data-copy]");
    if (!button) { return; }
    var input = document.querySelector(button.dataset.copy);
    if (!input) { return; }
    function done() {
      button.textContent = "Copied";
      setTimeout(function () { button.textContent = "Copy"; }, 2000);
    }
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(input.value).then(done, function () { input.select(); });
      return;
    }
    input.select();
    try { if (document.execCommand("copy")) { done(); } } catch (error) { /* the link stays selected */ }
  });

  // The sheet's Print button: the print stylesheet (app.css, @media print) lays the sheet out for paper.
  document.addEventListener("click", function (event) {
    if (event.target.closest && event.target.closest("button[data-print]")) { window.print(); }
  });

  // A feed entry's portrait lies over its initial's badge, drawn only where there is one; a portrait removed
  // after the entry was drawn no longer loads: hide it, so the badge shows rather than a broken image.
  // Error events do not bubble, so listen while they go down; images that failed before this ran are
  // found once the page is parsed.
  function hideBroken(img) { img.hidden = true; }
  document.addEventListener("error", function (event) {
    if (event.target.matches && event.target.matches("img[data-portrait]")) { hideBroken(event.target); }
  }, true);
  document.querySelectorAll("img[data-portrait]").forEach(function (img) {
    if (img.complete && img.naturalWidth === 0) { hideBroken(img); }
  });

  window.tabletop = { showMessage: showMessage };
})();
