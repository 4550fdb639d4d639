/* The rating page's rules without the page: which ratings wait on the device and in which order they are sent,
   what Undo does at each moment, when a tap is too early to count, how long to wait before sending again, and
   what a rating's post carries. rate.js draws the page with them; tests/js/rate-core.test.mjs runs them under
   Node's own test runner (no browser, no build step, no npm package). Loaded by the page as a classic script
   (window.ChampollionRating), required by Node as a CommonJS module. */
(function (root, factory) {
  "use strict";
  var api = factory();
  if (typeof module === "object" && module.exports) { module.exports = api; } else { root.ChampollionRating = api; }
}(typeof window !== "undefined" ? window : this, function () {
  "use strict";

  // A second tap this soon after the next item appeared was meant for the previous one (a double tap).
  var DOUBLE_TAP_MS = 300;
  var MAX_RETRY_SECONDS = 30;

  /* One campaign's ratings given on this device: `waiting` to be sent, oldest first (as stored on the device);
     `given` on this page, newest last, with the item each was given on (for Undo); `sending` the one on its way. */
  function RatingQueue(campaign, stored) {
    this.campaign = campaign;
    this.waiting = (stored || []).filter(function (entry) { return entry.campaign === campaign; });
    this.given = [];
    this.sending = null;
  }

  RatingQueue.prototype.give = function (item, entry) {
    this.waiting.push(entry);
    this.given.push({ item: item, entry: entry });
  };

  /* The next rating to send, now marked as on its way; null while one is on its way or none waits. */
  RatingQueue.prototype.next = function () {
    if (this.sending || !this.waiting.length) { return null; }
    this.sending = this.waiting[0];
    return this.sending;
  };

  /* The rating's post came back: `stored` (saved, or refused for good) removes it; otherwise it waits again. */
  RatingQueue.prototype.answered = function (entry, stored) {
    if (this.sending === entry) { this.sending = null; }
    if (stored) { this.waiting = this.waiting.filter(function (other) { return other.id !== entry.id; }); }
  };

  RatingQueue.prototype.isWaiting = function (id) {
    return this.waiting.some(function (entry) { return entry.id === id; });
  };

  RatingQueue.prototype.holds = function (itemId) {
    return this.waiting.some(function (entry) { return entry.item === itemId; });
  };

  /* Whether a rating of the item was given on this page (and not taken back), sent or not: an answer about the items
     ahead that the server read before that rating was stored may still list the item, which is not to be shown
     again. */
  RatingQueue.prototype.ratedHere = function (itemId) {
    return this.given.some(function (given) { return given.item.id === itemId; });
  };

  RatingQueue.prototype.counted = function () {
    return this.waiting.filter(function (entry) { return entry.counted; }).length;
  };

  /* What Undo does now:
     "take-back"  the last rating given here still waits on the device: take it back here;
     "after-send" a rating is on its way: undo once its answer comes;
     "wait"       older ratings still wait: Undo works once they are sent;
     "server"     everything is sent: the server withdraws the last rating (the page posts its Undo form);
     "none"       the campaign stopped taking ratings. */
  RatingQueue.prototype.undoPlan = function (stopped) {
    if (stopped) { return "none"; }
    var last = this.given[this.given.length - 1];
    if (last && this.isWaiting(last.entry.id) && this.sending !== last.entry) { return "take-back"; }
    if (this.sending) { return "after-send"; }
    if (this.waiting.length) { return "wait"; }
    return "server";
  };

  /* Take back the last rating given here (undoPlan said "take-back"): {item, entry}. */
  RatingQueue.prototype.takeBack = function () {
    var last = this.given.pop();
    this.waiting = this.waiting.filter(function (entry) { return entry.id !== last.entry.id; });
    return last;
  };

  RatingQueue.prototype.clear = function () {
    this.waiting = [];
    this.given = [];
  };

  /* Everything stored on the device: other campaigns' waiting ratings as they were, then this campaign's. */
  RatingQueue.prototype.merged = function (stored) {
    var campaign = this.campaign;
    return (stored || []).filter(function (entry) { return entry.campaign !== campaign; }).concat(this.waiting);
  };

  /* How the rating's answer should come (the X-Next-Item header): "item" when nothing is held here to show next
     (the answer carries the next item), "held" when the next item is held here (the answer need not name it). */
  function nextItemHeader(showing, waitingCount, upcomingCount) {
    if (!showing && waitingCount === 1 && !upcomingCount) { return "item"; }
    if (showing || upcomingCount) { return "held"; }
    return null;
  }

  /* Seconds to wait before trying again after `attempt` failures in a row: 2, 4, 8, 16, then every 30. */
  function retrySeconds(attempt) {
    return Math.min(MAX_RETRY_SECONDS, Math.pow(2, Math.max(1, attempt)));
  }

  /* A finger's tap that began this soon after the next item appeared was the second half of a double tap meant for
     the previous item: it must not rate this one (the page says so rather than dropping it silently). */
  function tapTooSoon(now, shownAt, touchedAt) {
    return now - shownAt < DOUBLE_TAP_MS && touchedAt > shownAt;
  }

  /* The fields a rating's post carries, in order. */
  function formFields(entry, csrfToken) {
    var fields = [["csrfmiddlewaretoken", csrfToken], ["client_id", entry.id], ["value", entry.value]];
    (entry.flags || []).forEach(function (flag) { fields.push(["flags", flag]); });
    fields.push(["comment", entry.comment || ""], ["correction", entry.correction || ""]);
    if (typeof entry.activeMs === "number") { fields.push(["active_ms", String(entry.activeMs)]); }
    if (entry.shown) { fields.push(["shown", entry.shown]); }
    return fields;
  }

  return {
    DOUBLE_TAP_MS: DOUBLE_TAP_MS, RatingQueue: RatingQueue, nextItemHeader: nextItemHeader,
    retrySeconds: retrySeconds, tapTooSoon: tapTooSoon, formFields: formFields
  };
}));
