/* The planning table of the campaign form follows the form: when the sample size, the ratings per item or the
   speakers ticked change, it asks the server for the plan of those numbers (the same page, `fragment=plan`) and
   shows it. A plan not computed yet is simulated by a background task; the server answers "being computed" and
   this script asks again every two seconds until the table arrives.

   Without this script the planning form above the table works as a plain GET form. No text of its own: the server
   sends every word. */
(function () {
  "use strict";
  var DEBOUNCE_MS = 700;
  var POLL_MS = 2000;
  var MAX_POLLS = 90;
  var form = document.getElementById("campaign-form");
  if (!form || !window.fetch) { return; }
  var timer = null;
  var polls = 0;
  var asked = "";

  function field(name) { return form.querySelector("[name='" + name + "']"); }

  function numbers() {
    var size = field("sample_size");
    var ratings = field("ratings_per_item");
    var ticked = form.querySelectorAll("input[name='speakers']:checked").length;
    var pool = document.getElementById("id_plan_speakers");
    var speakers = ticked || (pool ? pool.value : "");
    if (!size || !ratings || !size.value || !ratings.value || !speakers) { return null; }
    return "plan_size=" + encodeURIComponent(size.value) + "&plan_ratings=" + encodeURIComponent(ratings.value) +
      "&plan_speakers=" + encodeURIComponent(speakers);
  }

  function show(query) {
    fetch(window.location.pathname + "?" + query + "&fragment=plan", {credentials: "same-origin"})
      .then(function (response) { return response.text(); })
      .then(function (html) {
        if (query !== asked) { return; }
        var current = document.getElementById("plan");
        var holder = document.createElement("div");
        holder.innerHTML = html;
        var fresh = holder.querySelector("#plan");
        if (!current || !fresh) { return; }
        current.replaceWith(fresh);
        if (fresh.getAttribute("data-pending") && polls < MAX_POLLS) {
          polls += 1;
          timer = window.setTimeout(function () { show(query); }, POLL_MS);
        }
      })
      .catch(function () { /* the plain form still works */ });
  }

  function changed() {
    window.clearTimeout(timer);
    timer = window.setTimeout(function () {
      var query = numbers();
      if (!query || query === asked) { return; }
      asked = query;
      polls = 0;
      show(query);
    }, DEBOUNCE_MS);
  }

  ["sample_size", "ratings_per_item"].forEach(function (name) {
    var input = field(name);
    if (input) { input.addEventListener("input", changed); }
  });
  form.querySelectorAll("input[name='speakers']").forEach(function (box) {
    box.addEventListener("change", changed);
  });
  var plan = document.getElementById("plan");
  if (plan && plan.getAttribute("data-pending")) {
    asked = window.location.search.replace(/^\?/, "").replace(/#.*$/, "");
    timer = window.setTimeout(function () { show(asked); }, POLL_MS);
  }
}());
