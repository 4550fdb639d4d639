/* The translate and verify pages on a phone, with or without a connection.

   A submission (translation, skip or verification) is first kept on the device (localStorage, with the client id
   the server stores it under once), then sent, in order, as soon as there is a connection; the next items are
   fetched ahead so that the next one shows at once, and work goes on without a connection while items are held.
   The page says how many submissions wait. A submission the server refuses (the translation is the source itself,
   say) brings its item back, with what was written and why, while the page still holds it in memory: at once when
   nothing is written yet on the item shown, else as the next one.
   When the server says the batch stopped taking work (paused, closed,
   consent withdrawn), the waiting ones are discarded and the page says so. Keys: Ctrl+Enter saves (translate) or
   accepts (verify). The translate page notes whether text was pasted into the translation and how many characters
   were typed: weak evidence for the verifier, never a refusal. Both pages also keep the items they hold (sources,
   translations to verify) on the device with their shell (device-store.js, answered by the one service worker of
   /elicit/), so that each reloads without a connection and goes on with them.

   Without this script the pages work as plain form posts. */
(function () {
  "use strict";
  var gettext = window.gettext || function (text) { return text; };
  var ngettext = window.ngettext || function (one, many, n) { return n === 1 ? one : many; };
  var interpolate = window.interpolate || function (text, values) {
    return text.replace(/%\((\w+)\)s/g, function (_, name) { return values[name]; });
  };
  var PREFIX = "champollion-elicit-queue:";
  var HELD_PREFIX = "champollion-elicit-items:";
  var CACHE = "champollion-elicit-v1";  // shared with the service worker (elicitation.views.shared.OFFLINE_CACHE)
  var TIMEOUT_MS = 15000;
  var REFILL_BELOW = 5;  // the items ahead come twenty at a time (elicitation.selectors.UPCOMING), as rate.js's do

  var Device = window.ChampollionDevice;  // static/js/device-store.js: what the page keeps on the device
  var read = Device.readList;
  var write = Device.writeList;
  var newId = Device.newId;

  /* Where the items a page holds for a batch are kept: the translate and verify pages hold theirs apart. */
  function heldKeyOf(element, batchId, mode) {
    return HELD_PREFIX + element.getAttribute("data-user") + ":" + batchId + ":" + mode;
  }

  function csrfToken() {
    var input = document.querySelector("input[name=csrfmiddlewaretoken]");
    return input ? input.value : "";
  }

  /* The page that says a batch stopped taking work discards what waited for it on this device. */
  var wipe = document.querySelector("[data-elicit-wipe]");
  if (wipe) {
    var wipeKey = PREFIX + wipe.getAttribute("data-user");
    var batchId = wipe.getAttribute("data-batch");
    write(wipeKey, read(wipeKey).filter(function (entry) { return entry.batch !== batchId; }));
    if (Device.store) {
      ["translate", "verify"].forEach(function (page) { Device.store.removeItem(heldKeyOf(wipe, batchId, page)); });
    }
    return;
  }

  var form = document.querySelector("[data-elicit-form]");
  var flushOnly = document.querySelector("[data-elicit-flush]");
  if (!(form || flushOnly) || !window.fetch || !window.FormData || !window.JSON || !window.URLSearchParams) { return; }

  var statusLine = document.querySelector("[data-save-status]");
  var pendingLine = document.querySelector("[data-pending]");
  var queueKey = PREFIX + (form || flushOnly).getAttribute("data-user");
  var queue = read(queueKey);
  var sending = false;
  var attempt = 0;
  var retryTimer = null;

  function say(text) { if (statusLine) { statusLine.textContent = text; } }

  function showPending() {
    if (!pendingLine) { return; }
    pendingLine.hidden = !queue.length;
    pendingLine.textContent = queue.length ? interpolate(ngettext(
      "%(count)s submission waits on this device; it is sent when there is a connection.",
      "%(count)s submissions wait on this device; they are sent when there is a connection.", queue.length),
      { count: queue.length }, true) : "";
  }

  function persist() { write(queueKey, queue); showPending(); }

  function send() {
    if (sending || !queue.length) { return; }
    var entry = queue[0];
    sending = true;
    var body = new URLSearchParams();
    entry.fields.forEach(function (pair) { body.append(pair[0], pair[1]); });
    var controller = new AbortController();
    var timer = setTimeout(function () { controller.abort(); }, TIMEOUT_MS);
    fetch(entry.url, {
      method: "POST", body: body, credentials: "same-origin", signal: controller.signal,
      headers: { "Accept": "application/json", "X-CSRFToken": csrfToken() }
    }).then(function (response) {
      clearTimeout(timer);
      return response.json().catch(function () { return {}; }).then(function (data) {
        return { status: response.status, data: data };
      });
    }).then(function (answer) {
      sending = false;
      if (answer.status === 409 && answer.data.code === "not_serving") {
        queue = queue.filter(function (other) { return other.batch !== entry.batch; });
        persist();
        say(answer.data.error);
        stopped = true;
        persistHeld();
        return;
      }
      queue = queue.filter(function (other) { return other.id !== entry.id; });
      persist();
      attempt = 0;
      if (answer.status >= 400) {
        var refusal = interpolate(gettext("Not saved. %(reason)s"), { reason: answer.data.error || answer.status },
          true);
        // Brought back, the refusal is said beside the text it is about (an alert); otherwise in the status line.
        var back = bringBack(entry, refusal);
        say(back === "shown" ? "" : back === "next" ? refusal + " " + gettext("It comes back next, with what you wrote.")
          : refusal);
      } else if (answer.data.suspected) {
        say(gettext("Saved. It resembles a machine translation: a verifier will look at it closely."));
      } else if (shownFor && shownFor[entry.id] && shownFor[entry.id].kind === "skip") {
        say(gettext("Skipped; your reason is recorded."));
      } else {
        say(answer.data.duplicate ? gettext("Already saved.") : gettext("Saved."));
      }
      if (shownFor) { delete shownFor[entry.id]; }
      send();
      if (!queue.length && waitingForNext) { window.location.assign(nextUrl); }
    }).catch(function () {
      clearTimeout(timer);
      sending = false;
      attempt += 1;
      say(gettext("No connection: your work is kept on this device and sent as soon as possible."));
      clearTimeout(retryTimer);
      retryTimer = setTimeout(send, Math.min(30, Math.pow(2, attempt)) * 1000);
    });
  }

  window.addEventListener("online", function () { attempt = 0; send(); });
  showPending();
  send();
  if (!form) { return; }

  var mode = form.getAttribute("data-mode");
  var batch = form.getAttribute("data-batch");
  var nextUrl = form.getAttribute("data-next-url");
  var upcomingUrl = form.getAttribute("data-upcoming-url");
  var itemSection = document.querySelector("[data-item]");
  var skipForm = document.querySelector("[data-skip-form]");
  // The panel beside the form: skip the source (translate), declare a conflict of interest (verify).
  var sidePanel = document.querySelector("[data-skip-panel]") || document.querySelector("[data-conflict]");
  var upcoming = [];
  var fetching = false;
  var stopped = false;
  var waitingForNext = false;
  var nextWhenFetched = false;  // the next item was asked for while the items ahead were on their way
  // Served by the service worker without a connection: the page without its item, filled from what is held on this
  // device.
  var shell = itemSection.hasAttribute("data-shell");
  var offline = form.hasAttribute("data-shell-url") && Boolean(Device.store);
  var heldKey = heldKeyOf(form, batch, mode);
  var shellHtml = null;
  var progress = document.querySelector("[data-progress]");
  var current = shell ? null : pageItem();
  var pasted = false;
  var typed = 0;
  var shownFor = {};  // the item (and the kind: translate, skip, verify) each submission of this page was for
  var refusedOf = {};  // what was written for an item the server refused, and why, until it shows again

  /* The item the page came with: all of it when the device may hold it (a source of the public segments, or a
     translation of one). */
  function pageItem() {
    var data = document.getElementById("elicit-item");
    var item = data ? JSON.parse(data.textContent) : {};
    item.id = itemSection.getAttribute("data-item-id");
    item.url = form.getAttribute("action");
    item.mayHold = Boolean(data) && itemSection.hasAttribute("data-may-hold");
    return item;
  }

  function readHeld() {
    try { return JSON.parse(Device.store.getItem(heldKey) || "null"); } catch (error) { return null; }
  }

  /* The items this device holds (the server sends no secret one), with the count the translate page shows, kept for
     a reload without a connection; the page's shell is stored under each one's address. */
  function persistHeld() {
    if (!offline) { return; }
    if (stopped) { Device.store.removeItem(heldKey); return; }
    var items = (current && current.mayHold ? [current] : []).concat(upcoming);
    try {
      var done = progress ? Number(progress.getAttribute("data-count")) : 0;
      Device.store.setItem(heldKey, JSON.stringify({ items: items, done: done }));
    } catch (error) { /* storage full: the sources are fetched again */ }
    Device.storeShell(CACHE, shellHtml, items.map(function (item) { return item.url; })).then(function (stored) {
      if (stored) { form.setAttribute("data-offline-ready", ""); }
    });
  }

  function showProgress(done) {
    if (!progress || mode !== "translate") { return; }
    progress.setAttribute("data-count", String(done));
    progress.textContent = interpolate(ngettext("%(done)s translated in this batch",
      "%(done)s translated in this batch", done), { done: done }, true);
  }

  function field(name) { return form.querySelector("[name=" + name + "]"); }

  // Items this page took work on: an answer about items ahead, read on the server before that work was stored,
  // may still list them.
  var submitted = [];

  function queuedItems() {
    return queue.map(function (entry) { return entry.item; }).concat(submitted);
  }

  function refill() {
    if (fetching || stopped || upcoming.length >= REFILL_BELOW) { return; }
    fetching = true;
    fetch(upcomingUrl, { credentials: "same-origin", headers: { "Accept": "application/json" } })
      .then(function (response) {
        return response.json().then(function (data) { return { status: response.status, data: data }; });
      }).then(function (answer) {
        fetching = false;
        if (answer.status === 409) { stopped = true; say(answer.data.error); return; }
        var known = queuedItems().concat(upcoming.map(function (item) { return item.id; }),
          current ? [current.id] : []);
        (answer.data.items || []).forEach(function (item) {
          item.mayHold = true;
          if (known.indexOf(item.id) === -1) { upcoming.push(item); }
        });
        form.setAttribute("data-held", String(upcoming.length));
        persistHeld();
        if (nextWhenFetched) { nextWhenFetched = false; next(); }
      }).catch(function () {
        fetching = false;
        if (nextWhenFetched) { nextWhenFetched = false; next(); }
      });
  }

  function setText(selector, text) {
    var element = itemSection.querySelector(selector);
    if (element) { element.textContent = text || ""; }
  }

  function show(item) {
    current = item;
    itemSection.hidden = false;
    form.hidden = false;
    if (sidePanel) { sidePanel.hidden = false; }
    itemSection.setAttribute("data-item-id", item.id);
    setText("[data-text=source]", item.source);
    setText("[data-text=context]", item.context);
    itemSection.querySelector("[data-context]").hidden = !item.context;
    form.setAttribute("action", item.url);
    field("client_id").value = newId();
    field("shown").value = item.shown;
    var errors = document.querySelectorAll(".errorlist");
    Array.prototype.forEach.call(errors, function (list) { list.remove(); });
    if (mode === "translate") {
      var revision = itemSection.querySelector("[data-revision]");
      revision.hidden = !item.revision;
      var notes = revision.querySelector("[data-revision-notes]");
      notes.textContent = "";
      ((item.revision && item.revision.notes) || []).forEach(function (note) {
        var li = document.createElement("li");
        li.textContent = note;
        notes.appendChild(li);
      });
      field("text").value = item.revision ? item.revision.text : "";
      field("analysis").value = "";
      if (skipForm) {
        skipForm.setAttribute("action", item.skip_url);
        skipForm.reset();
        skipForm.querySelector("[name=client_id]").value = newId();
      }
      pasted = false;
      typed = 0;
      field("text").focus();
    } else {
      setText("[data-text=text]", item.text);
      itemSection.querySelector("[data-suspected]").hidden = !item.suspected;
      setText("[data-suspected-system]", item.suspected);
      itemSection.querySelector("[data-pasted]").hidden = !item.pasted;
      if (item.needed) {  // held by a page older than the number: the line is left as the server wrote it
        setText("[data-needed]", interpolate(ngettext("It needs %(needed)s accept.",
          "It needs %(needed)s accepts from different people.", item.needed), { needed: item.needed }, true));
      }
      form.querySelector("[data-version]").value = item.version;
      field("comment").value = "";
      form.querySelector("[data-edit-text]").value = item.text;
      var analysis = document.querySelector("[data-analysis]");
      if (analysis) { analysis.remove(); }
      var conflict = document.querySelector("[data-conflict-form]");
      if (conflict) { conflict.setAttribute("action", item.conflict_url); }
    }
    if (window.history && history.replaceState) { history.replaceState(null, "", item.url); }
    if (refusedOf[item.id]) {
      restoreRefused(refusedOf[item.id]);
      delete refusedOf[item.id];
    }
    persistHeld();
    refill();
  }

  function next() {
    var item = upcoming.shift();
    if (item) { show(item); return; }
    if (fetching) { nextWhenFetched = true; return; }
    if (navigator.onLine === false) {
      itemSection.hidden = true;
      form.hidden = true;
      if (sidePanel) { sidePanel.hidden = true; }
      say(gettext("No more items are held on this device. Your work is sent when the connection returns."));
      waitingForNext = true;
      return;
    }
    waitingForNext = true;
    if (!queue.length) { window.location.assign(nextUrl); }
  }

  function enqueue(url, fields, item, kind) {
    submitted.push(item.id);
    var id = fields.filter(function (pair) { return pair[0] === "client_id"; })[0][1];
    // The item itself stays in this page's memory only (a secret source is never written to the device): a refusal
    // brings it back with what was written.
    shownFor[id] = { item: item, kind: kind };
    queue.push({ id: id, url: url, fields: fields, batch: batch, item: item.id });
    persist();
    send();
  }

  /* Whether the item on screen holds nothing the person wrote yet (the page's own text aside): a refused item may
     take its place without losing anything. */
  function untouched() {
    if (!current || itemSection.hidden) { return true; }
    var names = mode === "translate" ? ["text", "analysis"] : ["comment"];
    return names.every(function (name) {
      var input = field(name);
      var given = mode === "translate" && name === "text" && current.revision ? current.revision.text : "";
      return !input || input.value.trim() === given.trim();
    });
  }

  /* The server refused a submission this page sent (the translation is the source itself, say) after the page had
     moved on: that item comes back with what was written and why it was refused — at once when the item on screen
     holds nothing written yet (which then goes first among those ahead), else next. Returns "shown", "next", or ""
     when the item is not in this page's memory (sent after a reload). */
  function bringBack(entry, refusal) {
    var held = shownFor && shownFor[entry.id];
    if (!held || !form || stopped) { return ""; }
    delete shownFor[entry.id];
    var item = held.item;
    refusedOf[item.id] = { fields: entry.fields, refusal: refusal, kind: held.kind };
    submitted = submitted.filter(function (id) { return id !== item.id; });
    upcoming = upcoming.filter(function (other) { return other.id !== item.id; });
    if (held.kind === "translate" && progress) {
      showProgress(Math.max(0, Number(progress.getAttribute("data-count")) - 1));
    }
    if (!untouched()) {
      upcoming.unshift(item);
      return "next";
    }
    if (current && current.id !== item.id && !itemSection.hidden && queuedItems().indexOf(current.id) === -1) {
      upcoming.unshift(current);
    }
    waitingForNext = false;
    show(item);
    return "shown";
  }

  /* Put back what was written for a refused item, and why it was refused beside it. */
  function restoreRefused(refused) {
    var values = {};
    refused.fields.forEach(function (pair) { values[pair[0]] = pair[1]; });
    var target = form;
    if (refused.kind === "skip" && skipForm) {
      target = skipForm;
      skipForm.closest("details").open = true;
      var reason = skipForm.querySelector("[name=reason][value=\"" + values.reason + "\"]");
      if (reason) { reason.checked = true; }
    } else if (mode === "translate") {
      pasted = values.pasted === "True";
      typed = Number(values.typed) || 0;
    }
    Array.prototype.forEach.call(target.querySelectorAll("textarea[name], input[type=text][name]"), function (input) {
      if (values[input.name] !== undefined) { input.value = values[input.name]; }
    });
    var errors = document.createElement("ul");
    errors.className = "errorlist nonfield";
    errors.setAttribute("role", "alert");
    var line = document.createElement("li");
    line.textContent = refused.refusal;
    errors.appendChild(line);
    var input = target.querySelector("textarea");
    var anchor = input ? input.closest("p") || input : target.firstElementChild;
    anchor.parentNode.insertBefore(errors, anchor);
    if (input) { input.focus(); }
  }

  function fieldsOf(target, submitter) {
    var fields = [];
    new FormData(target).forEach(function (value, name) {
      if (name !== "csrfmiddlewaretoken") { fields.push([name, value]); }
    });
    if (submitter && submitter.name) { fields.push([submitter.name, submitter.value]); }
    return fields;
  }

  if (mode === "translate") {
    field("text").addEventListener("paste", function () { pasted = true; });
    field("text").addEventListener("input", function (event) {
      if (event.inputType === "insertText" && event.data) { typed += event.data.length; }
    });
  }

  form.addEventListener("submit", function (event) {
    if (stopped) { return; }
    event.preventDefault();
    var submitter = event.submitter || form.querySelector("button[type=submit]");
    if (mode === "translate") {
      if (!field("text").value.trim()) {
        say(gettext("Write your translation first, or skip this source."));
        field("text").focus();
        return;
      }
      field("pasted").value = pasted ? "True" : "False";
      field("typed").value = String(typed);
    } else if (submitter && ["reject", "revise"].indexOf(submitter.value) !== -1 && !field("comment").value.trim()) {
      say(gettext("Say why in the comment, for the translator."));
      field("comment").focus();
      return;
    }
    enqueue(form.getAttribute("action"), fieldsOf(form, submitter), current, mode);
    if (progress) { showProgress(Number(progress.getAttribute("data-count")) + 1); }
    persistHeld();  // the count a reload without a connection shows, also when no item follows
    say(gettext("Kept on this device; sending…"));
    next();
  });

  if (skipForm) {
    skipForm.addEventListener("submit", function (event) {
      if (stopped) { return; }
      event.preventDefault();
      if (!skipForm.querySelector("[name=reason]:checked")) {
        say(gettext("Choose why you skip it."));
        return;
      }
      enqueue(skipForm.getAttribute("action"), fieldsOf(skipForm, null), current, "skip");
      skipForm.closest("details").open = false;
      next();
    });
  }

  /* Declaring a conflict of interest and checking an analysis are not kept on the device: without a connection the
     page says so and keeps what was written, instead of leaving for the browser's offline error. */
  Array.prototype.forEach.call(document.querySelectorAll("[data-conflict-form], [data-analysis] form"),
    function (onlineOnly) {
      onlineOnly.addEventListener("submit", function (event) {
        if (navigator.onLine !== false) { return; }
        event.preventDefault();
        say(gettext("No connection: this is sent only when there is one. What you wrote stays here; send it again once the connection is back."));
      });
    });

  document.addEventListener("keydown", function (event) {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      var button = mode === "translate" ? form.querySelector("[data-save]")
        : form.querySelector("button[value=accept]");
      if (form.requestSubmit) { form.requestSubmit(button); } else { button.click(); }
    }
  });

  window.addEventListener("beforeunload", function (event) {
    if (queue.length && navigator.onLine === false) { event.preventDefault(); event.returnValue = ""; }
  });

  if (shell) {
    // Reloaded without a connection: the held item at this address (else the next one held), as it was.
    var stored = offline ? readHeld() : null;
    var taken = queuedItems();
    var heldHere = ((stored && stored.items) || []).filter(function (item) { return taken.indexOf(item.id) === -1; });
    var here = heldHere.filter(function (item) { return item.url === window.location.pathname; })[0];
    upcoming = heldHere.filter(function (item) { return item !== here; });
    if (stored) { showProgress(stored.done); }
    if (here) { show(here); } else { next(); }
  } else if (offline) {
    Device.prepareOffline(form.getAttribute("data-worker-url"), form.getAttribute("data-shell-url"), CACHE)
      .then(function (html) {
        if (!html) { return; }
        shellHtml = html;
        persistHeld();
      });
  }
  refill();
}());
