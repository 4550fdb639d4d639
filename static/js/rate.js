/* Rating page enhancement: keys 1–4 rate, and a rating that fails to reach the server stays on the page
   and is re-sent with the same submission id until it is stored (the server stores it once).
   Without this script the page works as plain form posts. */
(function () {
  "use strict";
  var form = document.querySelector("[data-rating-form]");
  if (!form || !window.fetch) { return; }
  var status = form.querySelector("[data-save-status]");
  var buttons = form.querySelectorAll("button[name=value]");
  var sending = false;

  function say(text, kind) {
    status.textContent = text;
    status.className = "save-status" + (kind ? " " + kind : "");
  }

  function setBusy(busy) {
    sending = busy;
    buttons.forEach(function (button) { button.disabled = busy; });
  }

  function send(body, attempt) {
    return fetch(form.action || window.location.href, {
      method: "POST", body: body, credentials: "same-origin",
      headers: { "Accept": "application/json", "X-Requested-With": "fetch" }
    }).then(function (response) {
      return response.json().catch(function () { return {}; }).then(function (data) {
        if (response.ok && data.next_url) {
          say("Saved.", "ok");
          window.location.assign(data.next_url);
          return;
        }
        if (response.status >= 500) { throw new Error("server"); }
        setBusy(false);
        var detail = data.fields ? Object.values(data.fields).join(" ") : "";
        say((data.error || "The rating was not saved.") + (detail ? " " + detail : ""), "error");
      });
    }).catch(function () {
      var wait = Math.min(30, Math.pow(2, attempt));
      say("Not saved yet: no connection. Your rating is kept here and will be sent again in " + wait + " s.", "warning");
      return new Promise(function (resolve) { setTimeout(resolve, wait * 1000); })
        .then(function () { return send(body, attempt + 1); });
    });
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    if (sending) { return; }
    var submitter = event.submitter;
    if (!submitter || submitter.name !== "value") { return; }
    var body = new FormData(form);
    body.set("value", submitter.value);
    setBusy(true);
    say("Saving…");
    send(body, 0);
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
      form.requestSubmit(button);
    }
  });
})();
