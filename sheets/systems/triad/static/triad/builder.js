// Triad builder: the running count of points and traits against the chosen tier, kept up to date as the
// player types and ticks. The server sends the same count with the page (and after a refused submit), so
// without this script the page still says where the build stands when it was last sent.
(function () {
  "use strict";

  function count(have, want, done, short) {
    // Words it exactly as sheets/systems/triad/builder.py _count does.
    if (want === null) return have + " " + done + " (no tier)";
    var gap = want - have;
    var rest = gap > 0 ? gap + " " + short : gap < 0 ? -gap + " too many" : "exactly right";
    return have + " of " + want + " " + done + ": " + rest;
  }

  function lines(field) {
    if (!field) return 0;
    return field.value.split("\n").filter(function (line) { return line.trim() !== ""; }).length;
  }

  function score(field) {
    var text = field ? field.value.trim() : "";
    return /^[0-9]+$/.test(text) ? parseInt(text, 10) : 0;
  }

  function init() {
    var form = document.getElementById("builder-form");
    var tally = document.getElementById("triad-tally");
    if (!form || !tally) return;
    var tiers = JSON.parse(tally.dataset.tiers);
    var show = function (name, text) { tally.querySelector('[data-count="' + name + '"]').textContent = text; };

    function update() {
      var tier = tiers[form.elements.tier.value] || null;
      var points = ["body", "mind", "spirit"].reduce(function (sum, name) {
        return sum + score(form.elements[name]);
      }, 0);
      var traits = form.querySelectorAll('input[name="traits"]:checked').length + lines(form.elements.custom_traits);
      var powers = lines(form.elements.powers);
      show("points", count(points, tier ? tier[0] : null, "spent", "left"));
      show("traits", count(traits, tier ? tier[1] : null, "chosen", "to go"));
      var wantPowers = tier ? tier[2] : null;
      tally.querySelector(".triad-tally-powers").classList.toggle("d-none", !powers && !wantPowers);
      show("powers", count(powers, wantPowers, "named", "to go"));
    }

    form.addEventListener("input", update);
    form.addEventListener("change", update);
    update();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
