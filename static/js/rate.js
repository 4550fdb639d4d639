/* Rating page enhancement: keys 1–4 rate, and a rating that fails to reach the server stays on the page
   and is re-sent with the same submission id until it is stored (the server stores it once).
   Without this script (or in a browser too old for it) the page works as plain form posts. */
(function () {
  "use strict";
  var form = document.querySelector("[data-rating-form]");
  if (!form || !window.fetch || !window.FormData || !window.AbortController) { return; }
  var status = form.querySelector("[data-save-status]");
  var buttons = form.querySelectorAll("button[name=value]");
  var TIMEOUT_MS = 15000;
  var sending = false;

  function say(text, kind) {
    status.textContent = text;
    status.className = "save-status" + (kind ? " " + kind : "");
  }

  function setBusy(busy) {
    sending = busy;
    Array.prototype.forEach.call(buttons, function (button) { button.disabled = busy; });
  }

  function retryLater(body, attempt, why) {
    var wait = Math.min(30, Math.pow(2, attempt));
    say(why + " Your rating is kept here and will be sent again in " + wait + " s.", "warning");
    setTimeout(function () { send(body, attempt + 1); }, wait * 1000);
  }

  function send(body, attempt) {
    var controller = new AbortController();
    var timer = setTimeout(function () { controller.abort(); }, TIMEOUT_MS);
    fetch(form.action || window.location.href, {
      method: "POST", body: body, credentials: "same-origin", signal: controller.signal,
      headers: { "Accept": "application/json", "X-Requested-With": "fetch" }
    }).then(function (response) {
      clearTimeout(timer);
      if (response.redirected && response.url.indexOf("/accounts/login/") !== -1) {
        setBusy(false);
        say("Not saved: you were signed out. Sign in again in another tab, then choose your rating again.", "error");
        return;
      }
      if (response.status >= 500) {
        retryLater(body, attempt, "Not saved yet: the server had a problem.");
        return;
      }
      return response.json().catch(function () { return {}; }).then(function (data) {
        if (response.ok && data.next_url) {
          say("Saved.", "ok");
          window.location.assign(data.next_url);
          return;
        }
        setBusy(false);
        var detail = data.fields ? Object.keys(data.fields).map(function (k) { return data.fields[k]; }).join(" ") : "";
        say((data.error || "The rating was not saved.") + (detail ? " " + detail : ""), "error");
      });
    }).catch(function () {
      clearTimeout(timer);
      retryLater(body, attempt, "Not saved yet: no connection.");
    });
  }

  form.addEventListener("submit", function (event) {
    var submitter = event.submitter;
    if (!submitter || submitter.name !== "value") { return; }  // the browser posts the form itself
    event.preventDefault();
    if (sending) { return; }
    var body = new FormData(form);
    body.set("value", submitter.value);
    setBusy(true);
    say("Saving…");
    send(body, 0);
  });

  // Back to this page from the browser's cache: nothing is being sent from it any more.
  window.addEventListener("pageshow", function (event) {
    if (event.persisted) { setBusy(false); say(""); }
  });

  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey || sending) { return; }
    var target = event.target;
    var typing = target && (target.tagName === "TEXTAREA" || target.isContentEditable ||
      (target.tagName === "INPUT" && target.type !== "checkbox" && target.type !== "radio"));
    if (typing) { return; }
    var button = form.querySelector('button[data-key="' + event.key + '"]');
    if (button) {
      event.preventDefault();
      button.focus();
      button.click();
    }
  });
})();
