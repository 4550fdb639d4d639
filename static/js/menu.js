/* The site menu on a narrow screen: folded behind a "Menu" button, so that a page starts near the top of a phone
   instead of under four lines of links. Escape folds it again. Without this script every link shows, wrapped. */
(function () {
  "use strict";
  var nav = document.querySelector("[data-site-nav]");
  var toggle = nav && nav.querySelector("[data-menu-toggle]");
  if (!toggle || !window.matchMedia) { return; }
  var menu = document.getElementById(toggle.getAttribute("aria-controls"));
  var narrow = window.matchMedia("(max-width: 40rem)");

  function fold(folded) {
    toggle.setAttribute("aria-expanded", folded ? "false" : "true");
    menu.classList.toggle("folded", folded);
  }

  function follow() {
    nav.classList.toggle("foldable", narrow.matches);
    toggle.hidden = !narrow.matches;
    fold(narrow.matches);
  }

  toggle.addEventListener("click", function () { fold(toggle.getAttribute("aria-expanded") === "true"); });
  document.addEventListener("keydown", function (event) {
    if (event.key === "Escape" && narrow.matches && toggle.getAttribute("aria-expanded") === "true") {
      fold(true);
      toggle.focus();
    }
  });
  if (narrow.addEventListener) { narrow.addEventListener("change", follow); } else { narrow.addListener(follow); }
  follow();
})();
