/* Rating page enhancement: keys 1–4 rate; a rating is answered with the next item's page, which replaces this
   one in place (one round trip per rating); a rating that fails to reach the server stays on the page and is
   re-sent with the same submission id until it is stored (the server stores it once).
   Without this script (or in a browser too old for it) the page works as plain form posts. */
(function () {
  "use strict";
  if (!window.fetch || !window.FormData || !window.AbortController || !window.DOMParser ||
      !window.history || !window.history.pushState) { return; }
  var TIMEOUT_MS = 15000;
  var form = null;
  var sending = false;

  function statusLine() { return form.querySelector("[data-save-status]"); }

  function say(text, kind) {
    var status = statusLine();
    status.textContent = text;
    status.className = "save-status" + (kind ? " " + kind : "");
  }

  function setBusy(busy) {
    sending = busy;
    Array.prototype.forEach.call(form.querySelectorAll("button[name=value]"), function (button) {
      button.disabled = busy;
    });
  }

  function retryLater(body, attempt, why) {
    var wait = Math.min(30, Math.pow(2, attempt));
    say(why + " Your rating is kept here and will be sent again in " + wait + " s.", "warning");
    setTimeout(function () { send(body, attempt + 1); }, wait * 1000);
  }

  /* The answer is the next item's page: put its main content and title in place of this one's, as if the
     browser had followed a link, and say the rating was saved. */
  function showNextItem(html, url) {
    var next = new DOMParser().parseFromString(html, "text/html");
    var main = next.querySelector("main");
    if (!main) { window.location.assign(url); return; }
    document.title = next.title;
    document.querySelector("main").replaceWith(document.adoptNode(main));
    window.history.pushState({ item: url }, "", url);
    bind();
    say("Saved. Next item.", "ok");
    var heading = document.querySelector("main h1");
    if (heading) { heading.setAttribute("tabindex", "-1"); heading.focus({ preventScroll: true }); }
    window.scrollTo(0, 0);
  }

  function send(body, attempt) {
    var controller = new AbortController();
    var timer = setTimeout(function () { controller.abort(); }, TIMEOUT_MS);
    fetch(form.action || window.location.href, {
      method: "POST", body: body, credentials: "same-origin", signal: controller.signal,
      headers: { "Accept": "text/html", "X-Requested-With": "fetch", "X-Next-Item": "page" }
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
      var itemUrl = response.headers.get("X-Item-Url");
      if (response.ok && itemUrl) {
        return response.text().then(function (html) { sending = false; showNextItem(html, itemUrl); });
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

  function onSubmit(event) {
    var submitter = event.submitter;
    if (!submitter || submitter.name !== "value") { return; }  // the browser posts the form itself
    event.preventDefault();
    if (sending) { return; }
    var body = new FormData(form);
    body.set("value", submitter.value);
    setBusy(true);
    say("Saving…");
    send(body, 0);
  }

  function bind() {
    form = document.querySelector("[data-rating-form]");
    if (form) { form.addEventListener("submit", onSubmit); }
  }

  bind();
  if (!form) { return; }

  // Back to this page from the browser's cache: nothing is being sent from it any more.
  window.addEventListener("pageshow", function (event) {
    if (event.persisted && form) { setBusy(false); say(""); }
  });
  // Back or forward between items shown in place: load that item's page as it is now.
  window.addEventListener("popstate", function () { window.location.reload(); });

  document.addEventListener("keydown", function (event) {
    if (!form || event.altKey || event.ctrlKey || event.metaKey || sending) { return; }
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
