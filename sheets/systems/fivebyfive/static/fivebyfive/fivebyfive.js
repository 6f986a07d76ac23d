// Five by Five builder: rank the six rows in place, by the arrow buttons or by dragging a handle.
// Without this file the arrows are submit buttons and the server reorders; the order is always the
// hidden "order" inputs in document order, so the server reads the same thing either way.
(function () {
  "use strict";

  function setUp(list) {
    var values = (list.dataset.values || "").split(",").map(Number);
    var hpBonus = Number(list.dataset.hpBonus || 10);
    var status = document.getElementById("fbf-ranking-status");
    var dragged = null;

    function rows() { return Array.prototype.slice.call(list.querySelectorAll(".fbf-rank-row")); }

    function rowName(row) {
      var input = row.querySelector("input[type=text]");
      if (!input) { return "HP"; }
      return input.value.trim() || "descriptor " + row.dataset.slot;
    }

    // Values follow the position: redraw the badges and say where the moved row landed.
    function renumber(moved) {
      rows().forEach(function (row, index) {
        var badge = row.querySelector(".fbf-rank-value");
        var value = values[index];
        badge.textContent = badge.dataset.hp ? (value + hpBonus) + " HP" : String(value);
        row.querySelectorAll(".fbf-move").forEach(function (button) {
          button.setAttribute("aria-label", "Move " + rowName(row) + " " + button.dataset.direction);
        });
      });
      if (moved && status) {
        var position = rows().indexOf(moved);
        var badge = moved.querySelector(".fbf-rank-value");
        status.textContent = rowName(moved) + " is now number " + (position + 1) + ": " + badge.textContent;
      }
    }

    list.addEventListener("click", function (event) {
      var button = event.target.closest(".fbf-move");
      if (!button || !list.contains(button)) { return; }
      event.preventDefault();
      var row = button.closest(".fbf-rank-row");
      if (button.dataset.direction === "up" && row.previousElementSibling) {
        list.insertBefore(row, row.previousElementSibling);
      } else if (button.dataset.direction === "down" && row.nextElementSibling) {
        list.insertBefore(row.nextElementSibling, row);
      }
      button.focus();  // keep the keyboard on the row that moved
      renumber(row);
    });

    list.addEventListener("input", function (event) {
      if (event.target.matches("input[type=text]")) { renumber(null); }
    });

    // Only the handle starts a drag, so text in the name fields can still be selected with the mouse.
    list.addEventListener("pointerdown", function (event) {
      var handle = event.target.closest(".fbf-handle");
      if (handle) { handle.closest(".fbf-rank-row").setAttribute("draggable", "true"); }
    });
    list.addEventListener("pointerup", function (event) {
      var row = event.target.closest && event.target.closest(".fbf-rank-row");
      if (row && row !== dragged) { row.removeAttribute("draggable"); }
    });
    list.addEventListener("dragstart", function (event) {
      dragged = event.target.closest && event.target.closest(".fbf-rank-row");
      if (!dragged) { return; }
      dragged.classList.add("fbf-dragging");
      event.dataTransfer.effectAllowed = "move";
      event.dataTransfer.setData("text/plain", dragged.dataset.slot);
    });
    list.addEventListener("dragover", function (event) {
      if (!dragged) { return; }
      event.preventDefault();
      var over = event.target.closest && event.target.closest(".fbf-rank-row");
      if (!over || over === dragged) { return; }
      var box = over.getBoundingClientRect();
      var after = event.clientY > box.top + box.height / 2;
      list.insertBefore(dragged, after ? over.nextElementSibling : over);
    });
    list.addEventListener("drop", function (event) {
      if (dragged) { event.preventDefault(); }
    });
    list.addEventListener("dragend", function () {
      if (!dragged) { return; }
      dragged.classList.remove("fbf-dragging");
      dragged.removeAttribute("draggable");
      var moved = dragged;
      dragged = null;
      renumber(moved);
    });

    list.classList.add("fbf-ranking-live");
    renumber(null);
  }

  function start() {
    var list = document.getElementById("fbf-ranking");
    if (list) { setUp(list); }
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
