/* What the rating and translate pages keep on the device: lists under a key in localStorage (none when the browser
   refuses storage, e.g. a private window with storage off: the pages then keep their queues in memory only), and
   the client ids under which the server stores each submission once. */
(function () {
  "use strict";

  function storage() {
    try {
      var probe = "champollion-probe";
      window.localStorage.setItem(probe, probe);
      window.localStorage.removeItem(probe);
      return window.localStorage;
    } catch (error) { return null; }
  }
  var store = storage();

  function readList(key) {
    if (!store) { return []; }
    try { return JSON.parse(store.getItem(key) || "[]") || []; } catch (error) { return []; }
  }

  function writeList(key, entries) {
    if (!store) { return; }
    if (entries.length) { store.setItem(key, JSON.stringify(entries)); } else { store.removeItem(key); }
  }

  function newId() {
    if (window.crypto && window.crypto.randomUUID) { return window.crypto.randomUUID(); }
    var bytes = new Uint8Array(16);
    window.crypto.getRandomValues(bytes);
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    var hex = Array.prototype.map.call(bytes, function (b) { return (b + 0x100).toString(16).slice(1); }).join("");
    return [hex.slice(0, 8), hex.slice(8, 12), hex.slice(12, 16), hex.slice(16, 20), hex.slice(20)].join("-");
  }

  window.ChampollionDevice = { store: store, readList: readList, writeList: writeList, newId: newId };
}());
