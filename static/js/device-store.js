/* What the rating, translate and verify pages keep on the device: lists under a key in localStorage (none when the
   browser refuses storage, e.g. a private window with storage off: the pages then keep their queues in memory only),
   the client ids under which the server stores each submission once, and the page's shell for a reload without a
   connection (Cache Storage, answered by the service worker). */
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

  /* A page that reloads without a connection (the rating, translate and verify pages): register its service worker
     (common/offline.py, served under the page's part of the site), keep the page's stylesheets and scripts in the
     worker's cache with the notice the worker shows for the part's other pages without a connection (`offline/`
     beside the worker, in the reader's language), and fetch the page's shell (the page without its item). The
     promise gives the shell's HTML, or null where there is no service worker (the queue still survives a reload,
     the page does not). */
  function prepareOffline(workerUrl, shellUrl, cacheName) {
    if (!window.caches || !navigator.serviceWorker || !window.Response || !window.URL) { return Promise.resolve(null); }
    var noticeUrl = new URL("offline/", new URL(workerUrl, window.location.href)).href;
    var opened;
    return navigator.serviceWorker.register(workerUrl).then(function () {
      return caches.open(cacheName);
    }).then(function (cache) {
      opened = cache;
      var assets = Array.prototype.map.call(document.querySelectorAll("link[rel=stylesheet][href], script[src]"),
        function (element) { return element.href || element.src; });
      return Promise.all(assets.map(function (url) {
        return cache.match(url).then(function (hit) { return hit || cache.add(url); });
      }));
    }).then(function () {
      return fetch(noticeUrl, { credentials: "same-origin" });
    }).then(function (notice) {
      // Stored as a plain page (the server's Vary headers would keep the worker from matching it).
      return notice.ok ? notice.text().then(function (html) {
        return opened.put(noticeUrl, new Response(html, { headers: { "Content-Type": "text/html; charset=utf-8" } }));
      }) : null;
    }).then(function () {
      return fetch(shellUrl, { credentials: "same-origin" });
    }).then(function (response) {
      return response.ok && !response.redirected ? response.text() : null;
    }).catch(function () { return null; });
  }

  /* The shell stored under each held item's address, for the service worker to answer a reload with; the promise
     says whether it was stored. */
  function storeShell(cacheName, shellHtml, urls) {
    if (!shellHtml || !window.caches) { return Promise.resolve(false); }
    return caches.open(cacheName).then(function (cache) {
      return Promise.all(urls.map(function (url) {
        return cache.put(new URL(url, window.location.href).href, new Response(shellHtml, {
          headers: { "Content-Type": "text/html; charset=utf-8" }
        }));
      }));
    }).then(function () { return true; }).catch(function () { return false; });
  }

  window.ChampollionDevice = {
    store: store, readList: readList, writeList: writeList, newId: newId, prepareOffline: prepareOffline,
    storeShell: storeShell
  };
}());
