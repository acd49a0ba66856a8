// attn's service worker: push-only. It shows every push as a notification
// and handles taps on them. It has no fetch handler and caches nothing: the
// app always comes from the daemon.
"use strict";

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

// notificationOptions turns a push payload (internal/notification) into
// showNotification's title and options: tag, renotify and silent as sent,
// at most two answer actions.
function notificationOptions(p) {
  const opts = {
    body: p.body || "",
    icon: "/icons/icon-192.png",
    badge: "/icons/badge-96.png",
    timestamp: p.ts || Date.now(),
    silent: !!p.silent,
    data: {
      url: p.url || "/", kind: p.kind || "", host: p.host || "", pane: p.pane || "",
      fingerprint: p.fingerprint || "", nonce: p.nonce || "",
      actions: (p.actions || []).slice(0, 2),
    },
  };
  if (p.tag) {
    opts.tag = p.tag;
    opts.renotify = !!p.renotify; // renotify without a tag is an error
  }
  if (p.nonce && Array.isArray(p.actions)) {
    opts.actions = p.actions.slice(0, 2).map((a, i) => ({ action: "answer-" + i, title: a.label }));
  }
  return { title: p.title || "attn", opts };
}

self.addEventListener("push", (event) => {
  let payload;
  try {
    payload = event.data ? event.data.json() : {};
  } catch (_) {
    payload = { title: "attn", body: event.data ? event.data.text() : "" };
  }
  // Every push shows a notification (a push that shows nothing gets the
  // subscription revoked on some platforms).
  const { title, opts } = notificationOptions(payload || {});
  event.waitUntil(self.registration.showNotification(title, opts).catch(() =>
    self.registration.showNotification("attn", { body: "An agent needs you.", data: { url: "/" } })));
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  event.waitUntil(handleClick(event.notification, event.action));
});

// cardURL is the pane card a notification opens; with the fingerprint of
// the wait it announced, so the card can tell if it was already answered.
function cardURL(data, extra) {
  const u = new URL(data.url || "/", self.location.origin);
  if (data.fingerprint) u.searchParams.set("fp", data.fingerprint);
  for (const [k, v] of Object.entries(extra || {})) u.searchParams.set(k, v);
  return u.pathname + u.search;
}

// handleClick is what a tap does: an action button answers through the
// reply endpoint; a tap on the notification itself (or a refused answer)
// opens the agent's card, reusing an open window.
async function handleClick(notification, action) {
  const data = notification.data || {};
  if (action && action.startsWith("answer-") && data.nonce) {
    const i = Number(action.slice("answer-".length));
    const chosen = (data.actions || [])[i];
    if (chosen && await answer(data, chosen)) return;
    return openCard(cardURL(data, { answer: "failed" }));
  }
  return openCard(cardURL(data));
}

// answer posts {nonce, option_index}; true when the answer was taken.
async function answer(data, chosen) {
  try {
    const r = await fetch("/api/push/answer", {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ nonce: data.nonce, option_index: chosen.option_index }),
    });
    if (!r.ok) return false;
    const body = await r.json().catch(() => ({}));
    if (body.outcome && body.outcome !== "applied") return false;
    return true;
  } catch (_) {
    return false;
  }
}

// openCard focuses an open window of the app and sends it to url (it
// routes without reloading), else opens a new window there.
async function openCard(url) {
  const wins = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
  const win = wins.find((w) => w.visibilityState === "visible") || wins[0];
  if (win) {
    win.postMessage({ type: "navigate", url });
    try {
      await win.focus();
    } catch (_) { /* focusing needs a real tap; the window still navigates */ }
    return;
  }
  return self.clients.openWindow(url);
}
