/* Reading comfort: a larger text size, chosen in the page footer and remembered on this device. Loaded in <head>
   without `defer`, so that the page is laid out at the chosen size from its first paint (pages the server caches
   stay the same for everyone). Without this script, or without storage, the text keeps its normal size. */
(function () {
  "use strict";
  var KEY = "champollion-text-size";
  var SIZES = ["normal", "large", "larger"];
  var root = document.documentElement;

  function stored() {
    try { return window.localStorage.getItem(KEY); } catch (error) { return null; }
  }

  function apply(size) {
    SIZES.forEach(function (name) { root.classList.toggle("text-" + name, name === size && name !== "normal"); });
  }

  var chosen = SIZES.indexOf(stored()) === -1 ? "normal" : stored();
  apply(chosen);

  document.addEventListener("DOMContentLoaded", function () {
    var control = document.querySelector("[data-text-size]");
    if (!control) { return; }
    var buttons = control.querySelectorAll("button[data-size]");
    function press(size) {
      Array.prototype.forEach.call(buttons, function (button) {
        button.setAttribute("aria-pressed", button.getAttribute("data-size") === size ? "true" : "false");
      });
    }
    Array.prototype.forEach.call(buttons, function (button) {
      button.addEventListener("click", function () {
        var size = button.getAttribute("data-size");
        try { window.localStorage.setItem(KEY, size); } catch (error) { /* this page only */ }
        apply(size);
        press(size);
      });
    });
    press(chosen);
    control.hidden = false;
  });
})();
