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

  window.tabletop = { showMessage: showMessage };
})();
