/* The rating page's rules (static/js/rate-core.js) under Node's built-in test runner: `node --test tests/js/`
   (tests/test_rate_core_js.py runs it within the suite). What only a browser shows stays in the browser tests. */
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const path = require("node:path");

const Core = require(path.join(__dirname, "..", "..", "static", "js", "rate-core.js"));

function entry(id, options) {
  return Object.assign({ id: id, campaign: "c1", item: "item-" + id, url: "/review/items/" + id + "/", value: "acceptable",
    flags: [], comment: "", correction: "", counted: true }, options || {});
}

test("only this campaign's stored ratings are this page's; the others are kept as they were", () => {
  const stored = [entry("a"), entry("b", { campaign: "c2" }), entry("c")];
  const ratings = new Core.RatingQueue("c1", stored);
  assert.deepEqual(ratings.waiting.map((e) => e.id), ["a", "c"]);
  ratings.give({ id: "item-d" }, entry("d"));
  assert.deepEqual(ratings.merged(stored).map((e) => e.id), ["b", "a", "c", "d"]);
  assert.equal(ratings.counted(), 3);
  assert.ok(ratings.holds("item-d") && !ratings.holds("item-b"));
});

test("an item rated on this page stays known once its rating is sent, until the rating is taken back", () => {
  const ratings = new Core.RatingQueue("c1", []);
  ratings.give({ id: "item-1" }, entry("a", { item: "item-1" }));
  ratings.answered(ratings.next(), true);
  assert.ok(!ratings.holds("item-1") && ratings.ratedHere("item-1"), "sent, still rated here");
  ratings.give({ id: "item-2" }, entry("b", { item: "item-2" }));
  ratings.takeBack();
  assert.ok(!ratings.ratedHere("item-2") && ratings.ratedHere("item-1"));
});

test("ratings are sent one at a time, oldest first, and a failed one is sent again", () => {
  const ratings = new Core.RatingQueue("c1", []);
  ratings.give({ id: "1" }, entry("a"));
  ratings.give({ id: "2" }, entry("b"));
  const first = ratings.next();
  assert.equal(first.id, "a");
  assert.equal(ratings.next(), null, "nothing else is sent while one is on its way");
  ratings.answered(first, false);
  assert.equal(ratings.next().id, "a", "the failed rating is first again");
  ratings.answered(first, true);
  assert.equal(ratings.next().id, "b");
  ratings.answered(ratings.sending, true);
  assert.equal(ratings.next(), null);
  assert.deepEqual(ratings.waiting, []);
});

test("Undo takes back a rating still on the device, waits for one on its way, and asks the server once all is sent",
  () => {
    const ratings = new Core.RatingQueue("c1", []);
    assert.equal(ratings.undoPlan(false), "server", "nothing given here: the server withdraws the last rating");
    const item = { id: "item-a" };
    ratings.give(item, entry("a"));
    assert.equal(ratings.undoPlan(false), "take-back");
    const sending = ratings.next();
    assert.equal(ratings.undoPlan(false), "after-send");
    ratings.answered(sending, true);
    assert.equal(ratings.undoPlan(false), "server", "a tap on Undo must then post the form as it is");
    ratings.give({ id: "item-b" }, entry("b"));
    const taken = ratings.takeBack();
    assert.equal(taken.entry.id, "b");
    assert.equal(taken.item.id, "item-b");
    assert.deepEqual(ratings.waiting, []);
    assert.equal(ratings.undoPlan(true), "none", "a stopped campaign takes nothing back");
  });

test("Undo waits while older ratings than the last given here are still to be sent", () => {
  const ratings = new Core.RatingQueue("c1", [entry("old")]);
  ratings.give({ id: "item-new" }, entry("new"));
  const sending = ratings.next();
  assert.equal(sending.id, "old");
  assert.equal(ratings.undoPlan(false), "take-back", "the newest is still waiting, not on its way");
  ratings.takeBack();
  assert.equal(ratings.undoPlan(false), "after-send");
  ratings.answered(sending, false);
  assert.equal(ratings.undoPlan(false), "wait", "an older rating from before this page still waits");
});

test("a cleared queue gives nothing back and sends nothing", () => {
  const ratings = new Core.RatingQueue("c1", [entry("a")]);
  ratings.give({ id: "item-b" }, entry("b"));
  ratings.clear();
  assert.equal(ratings.next(), null);
  assert.equal(ratings.undoPlan(false), "server");
});

test("the answer asked for: the next item itself when nothing is held, none needed when it is", () => {
  assert.equal(Core.nextItemHeader(false, 1, 0), "item");
  assert.equal(Core.nextItemHeader(false, 2, 0), null);
  assert.equal(Core.nextItemHeader(true, 1, 0), "held");
  assert.equal(Core.nextItemHeader(false, 3, 2), "held");
});

test("waits between tries double up to 30 seconds", () => {
  assert.deepEqual([1, 2, 3, 4, 5, 6, 9].map(Core.retrySeconds), [2, 4, 8, 16, 30, 30, 30]);
});

test("a tap that began just after the next item appeared is the previous item's double tap; others count", () => {
  const shownAt = 10000;
  assert.equal(Core.tapTooSoon(shownAt + 120, shownAt, shownAt + 50), true);
  assert.equal(Core.tapTooSoon(shownAt + 120, shownAt, shownAt - 400), false, "a tap begun before it appeared");
  assert.equal(Core.tapTooSoon(shownAt + 1200, shownAt, shownAt + 1100), false, "1.2 s later is a new tap");
  assert.equal(Core.tapTooSoon(shownAt + 120, shownAt, 0), false, "no finger: a key or a mouse");
});

test("a rating's post carries its fields in order, flags repeated, working time and showing stamp when known", () => {
  const fields = Core.formFields(entry("a", { flags: ["hallucination", "register"], comment: "ok", activeMs: 4200,
    shown: "signed" }), "token");
  assert.deepEqual(fields, [["csrfmiddlewaretoken", "token"], ["client_id", "a"], ["value", "acceptable"],
    ["flags", "hallucination"], ["flags", "register"], ["comment", "ok"], ["correction", ""],
    ["active_ms", "4200"], ["shown", "signed"]]);
  assert.deepEqual(Core.formFields(entry("b"), "t").map((field) => field[0]),
    ["csrfmiddlewaretoken", "client_id", "value", "comment", "correction"]);
});
