// Glue for htmx: make refused requests (4xx/5xx) visible instead of silently ignored.
(function () {
  "use strict";

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
  document.addEventListener("htmx:sendError", function () {
    showMessage("Could not reach the server. Check your connection and try again.", "warning");
  });

  // In-place editing: Escape puts the value back as it was, leaving the field (blur) saves it.
  function cancelEdit(form) {
    form.dataset.cancelled = "1";
    htmx.ajax("GET", form.dataset.cancelUrl, { target: form, swap: "outerHTML" });
  }
  document.addEventListener("keydown", function (event) {
    var form = event.target.closest && event.target.closest("form[data-inline-edit]");
    if (form && event.key === "Escape") {
      event.preventDefault();
      cancelEdit(form);
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

  window.tabletop = { showMessage: showMessage };
})();
