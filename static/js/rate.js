/* The rating page on a phone, with or without a connection.

   A rating is first kept on the device (localStorage, with the submission id the server stores it under once),
   then sent, in order, as soon as there is a connection; the next items are fetched ahead so that the next one
   shows at once. The page says how many ratings wait, and warns before it is left with some unsent. When the
   server says the campaign stopped taking ratings (paused, closed, consent withdrawn), the waiting ratings are
   discarded and the page says so. Keys: 1–4 rate, 0 or S "can't judge", U undo, F flags, ? help.

   Without this script (or in a browser too old for it) the page works as plain form posts. */
(function () {
  "use strict";
  // The JavaScript catalog (loaded before this script) defines these; without it the page speaks English.
  var gettext = window.gettext || function (text) { return text; };
  var ngettext = window.ngettext || function (one, many, n) { return n === 1 ? one : many; };
  var interpolate = window.interpolate || function (text, values) {
    return text.replace(/%\((\w+)\)s/g, function (_, name) { return values[name]; });
  };
  var QUEUE_PREFIX = "champollion-rate-queue:";
  var HELD_PREFIX = "champollion-rate-items:";
  var CACHE = "champollion-rate-v1";  // shared with the service worker (templates/review/service_worker.js)
  var WALKTHROUGH_KEY = "champollion-rate-walkthrough-done";
  var TIMEOUT_MS = 15000;
  var REFILL_BELOW = 5;
  var Core = window.ChampollionRating;  // static/js/rate-core.js: the queue, Undo and timing rules

  var Device = window.ChampollionDevice;  // static/js/device-store.js: what the page keeps on the device
  var store = Device.store;
  var readQueue = Device.readList;
  var writeQueue = Device.writeList;
  var newId = Device.newId;

  /* The page that says a campaign stopped serving discards what waited for it on this device. */
  var wipe = document.querySelector("[data-rate-wipe]");
  if (wipe) {
    var wipeKey = QUEUE_PREFIX + wipe.getAttribute("data-user");
    var campaignId = wipe.getAttribute("data-campaign");
    var kept = readQueue(wipeKey).filter(function (entry) { return entry.campaign !== campaignId; });
    var dropped = readQueue(wipeKey).length - kept.length;
    writeQueue(wipeKey, kept);
    if (store) { store.removeItem(HELD_PREFIX + wipe.getAttribute("data-user") + ":" + campaignId); }
    if (dropped) {
      wipe.hidden = false;
      wipe.textContent = interpolate(ngettext("%(count)s rating waiting on this device was discarded.",
        "%(count)s ratings waiting on this device were discarded.", dropped), { count: dropped }, true);
    }
    return;
  }

  var form = document.querySelector("[data-rating-form]");
  if (!form || !Core || !window.fetch || !window.FormData || !window.JSON || !window.DOMParser || !window.history ||
      !window.history.pushState || !window.AbortController) { return; }

  var main = document.querySelector("main");
  var itemSection = document.querySelector("[data-item]");
  var campaign = form.getAttribute("data-campaign");
  var queueKey = QUEUE_PREFIX + form.getAttribute("data-user");
  var upcomingUrl = form.getAttribute("data-upcoming-url");
  var doneUrl = form.getAttribute("data-done-url");
  var undoForm = document.querySelector("[data-undo-form]");
  var undoButton = form.querySelector("[data-undo]");
  var more = form.querySelector("[data-more]");
  var help = document.querySelector("[data-help]");
  var statusLine = document.querySelector("[data-save-status]");
  var pendingLine = document.querySelector("[data-pending]");
  var progressBox = document.querySelector("[data-progress]");
  var waiting = document.querySelector("[data-waiting]");

  // This campaign's waiting ratings; those of other campaigns stay stored until their own page sends them.
  var ratings = new Core.RatingQueue(campaign, readQueue(queueKey));
  var heldKey = HELD_PREFIX + form.getAttribute("data-user") + ":" + campaign;
  // Served by the service worker without a connection: the page without its item, filled from what is held here.
  var shell = itemSection.hasAttribute("data-shell");
  var stored = readHeld();
  var current = shell ? null : readItem();
  var shellHtml = null;
  var upcoming = [];          // items fetched ahead, in the speaker's order
  var retryTimer = null;
  var attempt = 0;
  var stopped = false;        // the campaign stopped taking ratings: nothing more is sent or rated here
  var nextUrl = null;         // where the server says to go next, once nothing is left to show here
  var shownAt = 0;
  var fetching = false;
  // The server keeps back the items this device may not hold (secret ones, unless the campaign allows it): from
  // there on, each rating's answer carries the next item, until an item the device may hold comes again.
  var heldBack = !shell && !itemSection.hasAttribute("data-may-hold");
  var sentHere = 0;           // ratings this page sent
  var undoWhenSent = false;   // Undo was asked while the last rating was on its way
  var done = (shell && stored ? stored.done : Number(progressBox.getAttribute("data-done"))) + ratings.counted();
  var total = shell && stored ? stored.total : Number(progressBox.getAttribute("data-total"));
  var shownDone = done;

  /* Working time on the item shown, for the speaker's pay (never to judge a rating): counted while the page is
     visible and focused; a gap of more than IDLE_MS without a touch, key or scroll does not count at all. */
  var IDLE_MS = 180000;
  var MAX_RATING_MS = 900000;
  var workedSoFar = 0;
  var countingSince = null;
  var lastInput = 0;
  // A monotonic clock: setting the phone's time (or its waking) never makes working time negative.
  function clockNow() { return window.performance && performance.now ? performance.now() : Date.now(); }
  function working() { return document.visibilityState === "visible" && document.hasFocus(); }
  function settle(now) {
    if (countingSince === null) { return; }
    if (now - lastInput <= IDLE_MS) {
      workedSoFar += now - countingSince;
    } else if (lastInput > countingSince) {
      workedSoFar += lastInput - countingSince;
    }
    countingSince = now;
  }
  function noticeInput() {
    var now = clockNow();
    settle(now);
    lastInput = now;
    if (countingSince === null && working()) { countingSince = now; }
  }
  function noticeFocus() {
    var now = clockNow();
    settle(now);
    countingSince = working() ? now : null;
  }
  function startClock() {
    workedSoFar = 0;
    lastInput = clockNow();
    countingSince = working() ? lastInput : null;
  }
  function workedMs() {
    settle(clockNow());
    return Math.max(0, Math.min(Math.round(workedSoFar), MAX_RATING_MS));
  }
  ["pointerdown", "keydown", "scroll", "input", "touchstart"].forEach(function (name) {
    window.addEventListener(name, noticeInput, { passive: true, capture: true });
  });
  ["visibilitychange", "focus", "blur", "pagehide", "pageshow"].forEach(function (name) {
    window.addEventListener(name, noticeFocus);
  });
  document.addEventListener("visibilitychange", noticeFocus);

  function readHeld() {
    if (!store) { return null; }
    try { return JSON.parse(store.getItem(heldKey) || "null"); } catch (error) { return null; }
  }

  /* The items this device may hold (the server sends no other), kept for a reload without a connection, with the
     progress the server knows of. */
  function persistHeld() {
    if (!store) { return; }
    if (stopped) { store.removeItem(heldKey); return; }
    var items = (current && current.mayHold ? [current] : []).concat(upcoming);
    try {
      store.setItem(heldKey, JSON.stringify({ items: items, done: done - ratings.counted(), total: total }));
    } catch (error) { /* storage full: the items are fetched again */ }
    storeShell(items);
  }

  /* Store the page shell under each held item's address, for the service worker to answer a reload with. */
  function storeShell(items) {
    Device.storeShell(CACHE, shellHtml, items.map(function (item) { return item.url; })).then(function (stored) {
      if (stored) { form.setAttribute("data-offline-ready", ""); }
    });
  }

  function prepareOffline() {
    if (shell) { return; }
    Device.prepareOffline(form.getAttribute("data-worker-url"), form.getAttribute("data-shell-url"), CACHE)
      .then(function (html) {
        if (!html) { return; }
        shellHtml = html;
        persistHeld();
      });
  }

  function readItem(section) {
    section = section || itemSection;
    var texts = {};
    Array.prototype.forEach.call(section.querySelectorAll("[data-text]"), function (element) {
      texts[element.getAttribute("data-text")] = element.querySelector("em") ? "" : element.textContent;
    });
    var context = {};
    Array.prototype.forEach.call(section.querySelectorAll("[data-context]"), function (box) {
      context[box.getAttribute("data-context")] = Array.prototype.map.call(
        box.querySelectorAll(".context-line"), function (line) {
          return line.hasAttribute("data-secret") ? null : line.textContent;
        });
    });
    return {
      id: section.getAttribute("data-item-id"), url: section.getAttribute("data-item-url"),
      source: texts.source, candidate: texts.candidate, reference: texts.reference, context: context,
      rated: section.hasAttribute("data-rated"), mayHold: section.hasAttribute("data-may-hold"),
      shown: section.getAttribute("data-shown") || ""
    };
  }

  function say(text, kind) {
    statusLine.textContent = text;
    statusLine.className = "save-status" + (kind ? " " + kind : "");
  }

  function saveQueue() {
    writeQueue(queueKey, ratings.merged(readQueue(queueKey)));
    persistHeld();
    var count = ratings.waiting.length;
    pendingLine.hidden = count === 0;
    pendingLine.textContent = count ? interpolate(ngettext("%(count)s rating kept on this device, waiting to be sent.",
      "%(count)s ratings kept on this device, waiting to be sent.", count), { count: count }, true) : "";
  }

  /* While the next item is on its way, the count waits for it: it changes when the page is ready to rate. */
  function showProgress() {
    shownDone = current || done >= total ? done : Math.min(done, shownDone);
    progressBox.querySelector("[data-progress-text]").textContent =
      interpolate(gettext("%(done)s of %(total)s rated"), { done: shownDone, total: total }, true);
    var bar = progressBox.querySelector("progress");
    bar.max = total;
    bar.value = Math.min(shownDone, total);
  }

  function setButtons(disabled) {
    Array.prototype.forEach.call(form.querySelectorAll("button[name=value]"), function (button) {
      button.disabled = disabled;
    });
  }

  function setUndo() {
    if (undoButton) { undoButton.disabled = stopped || (ratings.given.length === 0 && done === 0); }
  }

  function setText(name, value) {
    var element = itemSection.querySelector('[data-text="' + name + '"]');
    if (!element) { return; }
    if (value) {
      element.textContent = value;
    } else {
      var none = document.createElement("em");
      none.className = "muted";
      none.lang = document.documentElement.lang;
      none.textContent = gettext("(no output)");
      element.replaceChildren(none);
    }
  }

  /* The sentences before and after the source in its text (none when its entry names no text); a secret one the
     speaker does not rate themselves comes as null. */
  function setContext(context) {
    Array.prototype.forEach.call(itemSection.querySelectorAll("[data-context]"), function (box) {
      var lines = (context && context[box.getAttribute("data-context")]) || [];
      var source = itemSection.querySelector('[data-text="source"]');
      var holder = box.querySelector("[data-context-lines]");
      holder.replaceChildren.apply(holder, lines.map(function (text) {
        var line = document.createElement("p");
        line.className = "context-line";
        if (text === null) {
          line.setAttribute("data-secret", "");
          var secret = document.createElement("em");
          secret.className = "muted";
          secret.lang = document.documentElement.lang;
          secret.textContent = gettext("(a sentence kept secret)");
          line.appendChild(secret);
        } else {
          line.lang = source.lang;
          line.dir = source.dir;
          line.textContent = text;
        }
        return line;
      }));
      box.hidden = lines.length === 0;
    });
  }

  /* Put an item in the page in place of the current one, with the form as given (or empty). */
  function show(item, entry) {
    current = item;
    setContext(item.context);
    setText("source", item.source);
    setText("candidate", item.candidate);
    if (item.reference !== undefined) { setText("reference", item.reference); }
    itemSection.setAttribute("data-item-id", item.id);
    itemSection.setAttribute("data-item-url", item.url);
    itemSection.hidden = false;
    waiting.hidden = true;
    forgetShownRating();
    var errors = form.querySelector(".errorlist");
    if (errors) { errors.remove(); }
    var flags = entry ? entry.flags : [];
    Array.prototype.forEach.call(form.querySelectorAll("input[name=flags]"), function (box) {
      box.checked = flags.indexOf(box.value) !== -1;
    });
    form.elements.comment.value = entry ? entry.comment : "";
    form.elements.correction.value = entry ? entry.correction : "";
    form.elements.client_id.value = newId();
    more.open = !!(entry && (flags.length || entry.comment || entry.correction));
    form.action = item.url;
    if (window.location.pathname !== item.url) { window.history.pushState({ item: item.url }, "", item.url); }
    setButtons(stopped);
    shownAt = Date.now();
    startClock();
    showProgress();
    persistHeld();
    var heading = main.querySelector("h1");
    heading.setAttribute("tabindex", "-1");
    heading.focus({ preventScroll: true });
    window.scrollTo(0, 0);
  }

  /* The rating the server page showed as given to its item ("You rated this …", the chosen button): it no longer
     holds once the page shows another item, or once a new rating of this one is kept on the device. */
  function forgetShownRating() {
    var notice = document.querySelector("[data-current-notice]");
    if (notice) { notice.remove(); }
    Array.prototype.forEach.call(form.querySelectorAll(".chosen"), function (button) {
      button.classList.remove("chosen");
    });
    Array.prototype.forEach.call(form.querySelectorAll("[data-chosen-mark]"), function (mark) { mark.remove(); });
  }

  /* Nothing more to show here yet: say why, and go on once the ratings are sent or the next items arrive. */
  function wait(text) {
    current = null;
    forgetShownRating();
    itemSection.hidden = true;
    setButtons(true);
    waiting.hidden = false;
    waiting.querySelector("[data-waiting-text]").textContent = text;
  }

  function waitForNext() {
    if (done >= total) {
      wait(gettext("You rated every item. Your ratings are being sent; the end screen follows."));
    } else if (navigator.onLine === false) {
      wait(gettext("No connection: the next item will show when the connection returns. Your ratings are kept on this device."));
    } else {
      wait(gettext("Loading the next item…"));
    }
  }

  function held(id) {
    return ratings.holds(id) || ratings.ratedHere(id) || upcoming.some(function (item) { return item.id === id; }) ||
      (current && current.id === id);
  }

  function fetchUpcoming() {
    if (fetching || stopped || heldBack) { return; }
    fetching = true;
    fetch(upcomingUrl, { credentials: "same-origin", headers: { "Accept": "application/json" } })
      .then(function (response) {
        if (response.status === 409) {
          return response.json().then(function (data) { campaignStopped(data.error); });
        }
        if (!response.ok || response.redirected) { return; }
        return response.json().then(function (data) {
          heldBack = !!data.held_back;
          (data.items || []).forEach(function (item) {
            item.mayHold = true;
            if (!held(item.id)) { upcoming.push(item); }
          });
          if (!current && upcoming.length) { show(upcoming.shift()); } else { persistHeld(); }
        });
      })
      .catch(function () { /* offline: the items come when the connection returns */ })
      .then(function () { fetching = false; });
  }

  function entryFrom(value) {
    var flags = Array.prototype.filter.call(form.querySelectorAll("input[name=flags]"), function (box) {
      return box.checked;
    }).map(function (box) { return box.value; });
    return {
      id: form.elements.client_id.value, campaign: campaign, item: current.id, url: current.url, value: value,
      flags: flags, comment: form.elements.comment.value, correction: form.elements.correction.value,
      counted: !current.rated, activeMs: workedMs(), shown: current.shown || ""
    };
  }

  function rate(value) {
    if (stopped) {
      say(gettext("This campaign is not taking ratings now: your tap was not counted."), "error");
      return;
    }
    if (!current) {
      say(gettext("The next item is still on its way: your tap was not counted. Rate it once it shows."), "warning");
      return;
    }
    var entry = entryFrom(value);
    ratings.give(current, entry);
    saveQueue();
    if (entry.counted) { done += 1; }
    setUndo();
    say(navigator.onLine === false ? gettext("Kept on this device; it will be sent when the connection returns.")
      : gettext("Saved on this device. Sending…"));
    if (upcoming.length) {
      show(upcoming.shift());
    } else {
      waitForNext();
      showProgress();
    }
    if (upcoming.length < REFILL_BELOW) { fetchUpcoming(); }
    flush();
  }

  function body(entry) {
    var data = new FormData();
    Core.formFields(entry, form.elements.csrfmiddlewaretoken.value).forEach(function (field) {
      data.append(field[0], field[1]);
    });
    return data;
  }

  /* The rating on its way did not arrive: it stays on the device and is sent again later (never lost). */
  function retryLater(entry, why) {
    ratings.answered(entry, false);
    if (undoWhenSent) {  // the rating asked back never arrived: take it back here
      undoWhenSent = false;
      undo();
    }
    attempt += 1;
    var seconds = Core.retrySeconds(attempt);
    // Short: the line below it already says how many ratings this device keeps (the bar must not cover the item).
    var texts = {
      offline: gettext("No connection. Next try in %(seconds)s s."),
      server: gettext("Not sent yet: the server had a problem. Next try in %(seconds)s s."),
      silent: gettext("Not sent yet: no answer from the server. Next try in %(seconds)s s.")
    };
    say(interpolate(texts[why], { seconds: seconds }, true), why === "offline" ? "" : "warning");
    clearTimeout(retryTimer);
    retryTimer = setTimeout(flush, seconds * 1000);
  }

  function sent(entry) {
    ratings.answered(entry, true);
    saveQueue();
  }

  /* Send the waiting ratings one at a time, oldest first, until none is left or the connection fails. */
  function flush() {
    if (stopped) { return; }
    var entry = ratings.next();
    if (!entry) {
      if (!ratings.waiting.length && !ratings.sending) { allSent(); }
      return;
    }
    clearTimeout(retryTimer);
    var controller = new AbortController();
    var timer = setTimeout(function () { controller.abort(); }, TIMEOUT_MS);
    var headers = { "Accept": "application/json", "X-Requested-With": "fetch" };
    // Nothing held here to show next: the last rating's answer carries the next item (one round trip). An item
    // held to show next: the answer need not name the next item (the server skips looking it up).
    var next = Core.nextItemHeader(!!current, ratings.waiting.length, upcoming.length);
    if (next) { headers["X-Next-Item"] = next; }
    fetch(entry.url, {
      method: "POST", body: body(entry), credentials: "same-origin", signal: controller.signal, headers: headers
    }).then(function (response) {
      clearTimeout(timer);
      if (response.redirected && response.url.indexOf("/accounts/login/") !== -1) {
        ratings.answered(entry, false);
        say(gettext("Not sent: you were signed out. Sign in again (your ratings stay on this device), then come back to this page."), "error");
        return;
      }
      if (response.status >= 500 || response.status === 429) {
        retryLater(entry, "server");
        return;
      }
      if (response.status === 403) {
        ratings.answered(entry, false);
        say(gettext("Not sent: this page has expired. Reload it; your ratings stay on this device and are sent then."), "error");
        return;
      }
      return response.json().catch(function () { return {}; }).then(function (data) {
        if (response.ok && data.saved) {
          attempt = 0;
          sentHere += 1;
          nextUrl = data.next_url || nextUrl;
          sent(entry);
          // Nothing was held to show next: the answer carries the next item itself (one round trip per rating).
          var following = data.next_item;
          if (following) {
            following.mayHold = !!following.may_hold;
            delete following.may_hold;
            upcoming.unshift(following);
            if (following.mayHold) { heldBack = false; }
          }
          if (undoWhenSent) {
            undoWhenSent = false;
            undo();
            return;
          }
          flush();
          if (following) { fetchUpcoming(); }
          return;
        }
        if (data.code === "not_serving") {
          ratings.answered(entry, false);
          campaignStopped(data.error);
          return;
        }
        // Refused for good (not this speaker's item any more, or invalid): say so and send the rest.
        sent(entry);
        var detail = data.fields ? Object.keys(data.fields).map(function (k) { return data.fields[k]; }).join(" ") : "";
        say(interpolate(gettext("One rating was not saved: %(reason)s"), {
          reason: (data.error || gettext("this item is no longer yours to rate.")) + (detail ? " " + detail : "")
        }, true), "error");
        flush();
      });
    }).catch(function () {
      clearTimeout(timer);
      retryLater(entry, navigator.onLine === false ? "offline" : "silent");
    });
  }

  function allSent() {
    if (stopped) { return; }
    if (sentHere) { say(gettext("All your ratings are saved."), "ok"); }
    if (!current) {
      if (upcoming.length) {
        show(upcoming.shift());
      } else if (done >= total) {
        window.location.assign(doneUrl);
      } else if (nextUrl && nextUrl !== window.location.pathname) {
        window.location.assign(nextUrl);
      } else {
        fetchUpcoming();
      }
    }
  }

  function campaignStopped(message) {
    stopped = true;
    ratings.clear();
    saveQueue();
    upcoming = [];
    setButtons(true);
    setUndo();
    say(message || gettext("This campaign is not taking ratings now."), "error");
  }

  /* Undo: a rating still on this device is taken back here; one already sent is withdrawn by the server, which
     gives its item back with what was given. */
  function undo() {
    var plan = ratings.undoPlan(stopped);
    if (plan === "none") {
      say(gettext("This campaign is not taking ratings now."), "error");
      return;
    }
    if (plan === "take-back") {
      var last = ratings.takeBack();
      saveQueue();
      if (last.entry.counted) { done -= 1; }
      if (current) { upcoming.unshift(current); }
      showProgress();
      show(last.item, last.entry);
      setUndo();
      say(gettext("Rating taken back. Rate this item again."), "ok");
      return;
    }
    if (plan === "after-send") {
      undoWhenSent = true;
      say(gettext("Taking back your last rating…"));
      return;
    }
    if (plan === "wait") {
      say(gettext("Ratings are still waiting to be sent; Undo works once they are sent."), "warning");
      return;
    }
    // Everything is sent: the server withdraws the last rating and shows its item again.
    undoForm.requestSubmit ? undoForm.requestSubmit() : undoForm.submit();
  }

  function openFlags() {
    more.open = true;
    var first = more.querySelector("input[name=flags]");
    if (first) { first.focus(); }
  }

  function openHelp() {
    if (help && help.showModal && !help.open) { help.showModal(); }
  }

  form.addEventListener("submit", function (event) {
    var submitter = event.submitter;
    if (!submitter || submitter.name !== "value") { return; }  // the browser posts the form itself
    event.preventDefault();
    // A finger's second tap just after the next item appeared was meant for the previous one: not counted, said.
    if (Core.tapTooSoon(Date.now(), shownAt, lastPointer)) {
      say(gettext("That tap came as the next item appeared, so it was not counted: tap again to rate this item."),
        "warning");
      return;
    }
    rate(submitter.value);
  });

  var lastPointer = 0;
  form.addEventListener("pointerdown", function (event) {
    if (event.pointerType === "touch") { lastPointer = Date.now(); }
  });

  /* A tap on Undo: a rating still on the device (or on its way) is taken back here; once everything is sent the
     form is posted as it is, the server withdrawing the last rating. (Posting it again from inside its own submit
     event would be ignored by the browser: the tap would do nothing.) */
  undoForm.addEventListener("submit", function (event) {
    if (ratings.undoPlan(stopped) === "server") { return; }
    event.preventDefault();
    undo();
  });

  Array.prototype.forEach.call(document.querySelectorAll("[data-open-help]"), function (button) {
    button.addEventListener("click", openHelp);
  });
  /* The instructions cover the item on a phone: a button at their end and Escape close them, back on their title. */
  var instructions = document.querySelector("[data-instructions]");
  function closeInstructions() {
    instructions.open = false;
    instructions.querySelector("summary").focus();
  }
  if (instructions) {
    var closeButton = instructions.querySelector("[data-close-instructions]");
    if (closeButton) { closeButton.addEventListener("click", closeInstructions); }
    instructions.addEventListener("keydown", function (event) {
      if (event.key === "Escape" && instructions.open) { event.preventDefault(); closeInstructions(); }
    });
  }
  // The controls that only this script works (the page without it does not offer them).
  Array.prototype.forEach.call(document.querySelectorAll("[data-needs-script]"), function (element) {
    element.hidden = false;
  });

  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey || event.defaultPrevented) { return; }
    var target = event.target;
    var typing = target && (target.tagName === "TEXTAREA" || target.tagName === "SELECT" || target.isContentEditable ||
      (target.tagName === "INPUT" && target.type !== "checkbox" && target.type !== "radio"));
    if (typing || (help && help.open)) { return; }
    var key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
    if (key === "?") { event.preventDefault(); openHelp(); return; }
    if (key === "u") { event.preventDefault(); undo(); return; }
    if (key === "f") { event.preventDefault(); openFlags(); return; }
    if (key === "s") { key = "0"; }
    var button = current && !stopped ? form.querySelector('button[name=value][data-key="' + key + '"]') : null;
    if (button && !button.disabled) {
      event.preventDefault();
      rate(button.value);
    }
  });

  window.addEventListener("beforeunload", function (event) {
    if (ratings.waiting.length) {
      event.preventDefault();
      event.returnValue = "";
    }
  });
  window.addEventListener("online", function () { attempt = 0; flush(); fetchUpcoming(); });
  window.addEventListener("offline", function () {
    if (ratings.waiting.length) { say(gettext("No connection. Your ratings are kept on this device."), "warning"); }
  });
  // Back or forward between items shown in place: load that item's page as it is now.
  window.addEventListener("popstate", function () { window.location.reload(); });

  /* A short first-time walkthrough, remembered on this device. */
  var walkthrough = document.querySelector("[data-walkthrough]");
  function showWalkthrough() {
    walkthrough.hidden = false;
    document.querySelector("[data-instructions]").open = false;
    walkthrough.querySelector("[data-walkthrough-done]").focus();
  }
  walkthrough.querySelector("[data-walkthrough-done]").addEventListener("click", function () {
    walkthrough.hidden = true;
    if (store) { store.setItem(WALKTHROUGH_KEY, "1"); }
    var heading = main.querySelector("h1");
    heading.setAttribute("tabindex", "-1");
    heading.focus({ preventScroll: true });
  });
  document.querySelector("[data-show-walkthrough]").addEventListener("click", showWalkthrough);
  if (store && !store.getItem(WALKTHROUGH_KEY)) { walkthrough.hidden = false; }

  if (shell) {
    var heldHere = ((stored && stored.items) || []).filter(function (item) { return !ratings.holds(item.id); });
    var here = heldHere.filter(function (item) { return item.url === window.location.pathname; })[0];
    upcoming = heldHere.filter(function (item) { return item !== here; });
    if (here) {
      show(here);
    } else if (upcoming.length) {
      show(upcoming.shift());
    } else {
      waitForNext();
    }
  } else {
    form.action = current.url;
    startClock();
  }
  shownAt = 0;
  saveQueue();
  showProgress();
  setUndo();
  if (ratings.waiting.length) { say(gettext("Sending the ratings kept on this device…")); }
  fetchUpcoming();
  flush();
  prepareOffline();
})();
