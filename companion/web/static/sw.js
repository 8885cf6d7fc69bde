// Keeps the table link's page for the moments the host cannot be reached, so a phone
// that moved to another network still shows what to try instead of a browser error.
// Browsers run service workers only on secure origins (the host's own browser, say);
// elsewhere the page does without it.
"use strict";

var CACHE = "companion-table-v1";
var SHELL = ["./", "app.js", "app.css", "icon.svg"];

self.addEventListener("install", function (event) {
  event.waitUntil(
    caches.open(CACHE).then(function (cache) {
      return cache.addAll(SHELL);
    })
  );
  self.skipWaiting();
});

self.addEventListener("activate", function (event) {
  event.waitUntil(self.clients.claim());
});

self.addEventListener("fetch", function (event) {
  var request = event.request;
  var url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin || url.pathname === "/ws") {
    return;
  }
  // The host first (its page is always the newest); the kept copy when it is out of reach.
  event.respondWith(
    fetch(request)
      .then(function (response) {
        if (response.ok) {
          var copy = response.clone();
          caches.open(CACHE).then(function (cache) {
            cache.put(url.pathname === "/" ? "./" : request, copy);
          });
        }
        return response;
      })
      .catch(function () {
        return caches.match(url.pathname === "/" ? "./" : request).then(function (kept) {
          return kept || Response.error();
        });
      })
  );
});
