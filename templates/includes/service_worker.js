/* The service worker of the pages that work without a connection (common/offline.py), served under each page's
   part of the site so that its scope covers that page: the rating page's from /review/sw.js, the translate and
   verify pages' from /elicit/sw.js. Only for a reload without a connection: an item's page that cannot be fetched
   is answered with its page's shell, which the page's script (rate.js, elicit.js) stored under that item's address
   and fills with the item held on the device; the stylesheet, the scripts and the translations come from the copies
   stored beside it. Any other page of the worker's part of the site that cannot be fetched is answered with the
   notice stored under `offline/` beside the worker (common.offline.offline_notice): the work is kept on the device,
   Back returns to it. With a connection, everything comes from the server as usual. */
"use strict";
var CACHE = "{{ cache|escapejs }}";
var ITEM_PAGE = new RegExp("{{ item_page|escapejs }}");
var SUBMISSION = new RegExp("{{ submission|escapejs }}");
var OFFLINE_NOTICE = new URL("offline/", self.location.href).href;

self.addEventListener("install", function () { self.skipWaiting(); });
self.addEventListener("activate", function (event) { event.waitUntil(self.clients.claim()); });

self.addEventListener("fetch", function (event) {
  var request = event.request;
  var url = new URL(request.url);
  if (url.origin !== self.location.origin) { return; }
  if (request.method !== "GET") {
    // Submissions are sent from here as well, so that they take the same way out as the page's other requests:
    // Chromium's offline emulation (DevTools), which the offline journey tests use, misses requests a service
    // worker lets through untouched.
    if (SUBMISSION.test(url.pathname)) { event.respondWith(fetch(request)); }
    return;
  }
  var navigation = request.mode === "navigate";
  var itemPage = navigation && ITEM_PAGE.test(url.pathname);
  var asset = url.pathname.indexOf("/static/") === 0 || /\/jsi18n\/$/.test(url.pathname);
  if (!navigation && !asset) { return; }
  event.respondWith(fetch(request).catch(function (error) {
    return caches.open(CACHE).then(function (cache) {
      if (itemPage) { return cache.match(url.origin + url.pathname, { ignoreSearch: true }); }
      return navigation ? cache.match(OFFLINE_NOTICE) : cache.match(request);
    }).then(function (stored) {
      if (stored) { return stored; }
      throw error;
    });
  }));
});
