/* The rating page's service worker (served from /review/sw.js, so its scope is /review/). Only for a reload
   without a connection: an item's page that cannot be fetched is answered with the campaign's rating page shell,
   which rate.js stored under that item's address and fills with the item held on the device; the stylesheet,
   the scripts and the translations come from the copies stored beside it. With a connection, everything comes
   from the server as usual. */
"use strict";
var CACHE = "champollion-rate-v1";

self.addEventListener("install", function () { self.skipWaiting(); });
self.addEventListener("activate", function (event) { event.waitUntil(self.clients.claim()); });

self.addEventListener("fetch", function (event) {
  var request = event.request;
  var url = new URL(request.url);
  if (url.origin !== self.location.origin) { return; }
  if (request.method !== "GET") {
    // Ratings are sent from here as well, so that they take the same way out as the page's other requests:
    // Chromium's offline emulation (DevTools), which the offline journey test uses, misses requests a service
    // worker lets through untouched.
    if (/^\/review\/items\/[0-9a-f-]+\/$/.test(url.pathname)) { event.respondWith(fetch(request)); }
    return;
  }
  var itemPage = request.mode === "navigate" && /^\/review\/items\/[0-9a-f-]+\/$/.test(url.pathname);
  var asset = url.pathname.indexOf("/static/") === 0 || /\/jsi18n\/$/.test(url.pathname);
  if (!itemPage && !asset) { return; }
  event.respondWith(fetch(request).catch(function (error) {
    return caches.open(CACHE).then(function (cache) {
      return cache.match(itemPage ? url.origin + url.pathname : request, { ignoreSearch: itemPage });
    }).then(function (stored) {
      if (stored) { return stored; }
      throw error;
    });
  }));
});
