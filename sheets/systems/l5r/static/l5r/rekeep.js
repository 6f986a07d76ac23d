// L5R, keeping other dice under a roll's result (templates/l5r/_after_roll.html): a tap on a die flips
// its pressed state and the hidden "keep" input it stands for, then asks the server what the dice now
// picked make (the count against those allowed, the new total: views.l5r_rekeep_choice). Nothing of the
// rule is here: which choices are taken and what they total is the server's answer.
(function () {
  "use strict";

  document.addEventListener("click", function (event) {
    var die = event.target.closest && event.target.closest(".l5r-die-toggle");
    if (!die || !die.form) { return; }
    var picked = die.getAttribute("aria-pressed") !== "true";
    die.setAttribute("aria-pressed", picked ? "true" : "false");
    var input = document.getElementById(die.getAttribute("data-keep-input"));
    if (input) { input.disabled = !picked; }
    var status = die.form.querySelector(".l5r-rekeep-status");
    if (status && window.htmx) { window.htmx.trigger(status, "l5r-dice-picked"); }
  });
})();
