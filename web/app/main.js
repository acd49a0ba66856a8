// The web app's start: who this browser is, the live stream, presence, the
// router, and toasts.
import * as api from "./api.js";
import * as push from "./push.js";
import { h } from "./ui.js";
import { renderInbox } from "./inbox.js";
import { renderCard } from "./card.js";
import { renderSettings } from "./settings.js";
import { state, setPage, changed, setNavigator, setDeviceSetter } from "./state.js";

// PRESENCE_EVERY is how often a window reports itself (the daemon keeps a
// report for 45 s).
const PRESENCE_EVERY = 20000;

const view = document.getElementById("view");
let current = null; // {name, render, ref}
let events = null;

function routeOf(path) {
  const m = path.match(/^\/panes\/([^/]+)\/([^/]+)$/);
  if (m) return { name: "card", host: decodeURIComponent(m[1]), pane: decodeURIComponent(m[2]) };
  if (path === "/settings") return { name: "settings" };
  return { name: "inbox" };
}

// go navigates inside the app without reloading.
function go(url, replace = false) {
  if (replace) history.replaceState(null, "", url);
  else history.pushState(null, "", url);
  render();
}

// focusedPane is the pane this window shows, for presence.
function focusedPane() {
  return current && current.name === "card" ? current.host + "/" + current.pane : "";
}

function render() {
  const r = routeOf(location.pathname);
  current = r;
  for (const a of document.querySelectorAll("[data-nav]")) {
    a.classList.toggle("active", a.dataset.nav === (r.name === "settings" ? "settings" : "inbox"));
    if (a.dataset.nav === r.name) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  }
  const params = new URLSearchParams(location.search);
  view.replaceChildren();
  setPage(null);
  if (r.name === "card") renderCard(view, r.host, r.pane, params);
  else if (r.name === "settings") renderSettings(view);
  else renderInbox(view);
  document.title = r.name === "settings" ? "attn · Settings" : r.name === "card" ? `attn · ${r.pane}` : "attn";
  reportPresence();
  window.scrollTo(0, 0);
}

// refresh tells the current page what changed.
function refresh(what) {
  changed(what);
  updateBadge();
}

function updateBadge() {
  const n = [...state.panes.values()].filter((p) => p.status === "blocked").length;
  const b = document.getElementById("badge");
  b.hidden = n === 0;
  b.textContent = String(n);
}

// ---- the live stream ----

function connect() {
  if (events) events.close();
  const url = "/api/events" + (state.deviceId ? "?device=" + state.deviceId : "");
  events = new EventSource(url);
  events.addEventListener("open", () => setLive(true));
  events.addEventListener("panes", (e) => {
    const d = JSON.parse(e.data);
    state.panes = new Map(d.panes.map((p) => [p.host + "/" + p.pane, p]));
    state.seq = d.seq;
    refresh({ all: true });
  });
  events.addEventListener("pane", (e) => {
    const c = JSON.parse(e.data);
    if (state.seq && c.seq > state.seq + 1) resync(); // missed changes
    state.seq = c.seq;
    const key = c.pane.host + "/" + c.pane.pane;
    if (c.gone) state.panes.delete(key);
    else state.panes.set(key, c.pane);
    refresh({ pane: key });
  });
  events.addEventListener("toast", (e) => toast(JSON.parse(e.data)));
  events.addEventListener("error", async () => {
    setLive(false);
    if (events.readyState === EventSource.CLOSED) {
      // Refused (signed out?) rather than dropped: check, then retry.
      try {
        await api.get("/api/session");
        setTimeout(connect, 3000);
      } catch (err) {
        if (err.status === 401) location.reload(); // shows how to pair
        else setTimeout(connect, 5000);
      }
    }
  });
}

async function resync() {
  try {
    const d = await api.get("/api/panes");
    state.panes = new Map(d.panes.map((p) => [p.host + "/" + p.pane, p]));
    refresh({ all: true });
  } catch (_) { /* the stream retries */ }
}

function setLive(on) {
  state.live = on;
  document.documentElement.dataset.live = on ? "1" : "0";
  const c = document.getElementById("conn");
  c.hidden = on;
  c.textContent = on ? "" : "reconnecting…";
}

// ---- toasts: in-app notifications while the window is visible ----

function toast(n) {
  if (document.visibilityState !== "visible") return;
  const box = document.getElementById("toasts");
  const url = n.url || "/";
  const el = h("div", { class: "toast " + (n.kind || ""), role: "alert" },
    h("button", { class: "toast-body", type: "button", onclick: () => { el.remove(); go(url + (n.fingerprint ? "?fp=" + encodeURIComponent(n.fingerprint) : "")); } },
      h("strong", {}, n.title || "attn"),
      n.body ? h("span", {}, n.body) : null),
    h("button", { class: "toast-close", type: "button", "aria-label": "Dismiss", onclick: () => el.remove() }, "×"));
  if (n.tag) {
    for (const old of box.querySelectorAll(".toast")) if (old.dataset.tag === n.tag) old.remove();
    el.dataset.tag = n.tag;
  }
  box.prepend(el);
  setTimeout(() => el.remove(), 12000);
}

// ---- presence ----

function reportPresence() {
  if (!state.deviceId) return;
  const visible = document.visibilityState === "visible";
  const body = { device_id: state.deviceId, visible, focused: visible ? focusedPane() : "" };
  fetch("/api/presence", {
    method: "POST", credentials: "same-origin", keepalive: true,
    headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  }).then((r) => {
    // Says what the daemon last heard from this window.
    if (r.ok) document.documentElement.dataset.presence = (visible ? "visible " : "hidden ") + body.focused;
  }).catch(() => {});
}

// setDevice records this browser's push device and restarts what depends
// on it (the stream's toasts, presence).
function setDevice(id) {
  if (id === state.deviceId) return;
  state.deviceId = id || 0;
  connect();
  reportPresence();
  refresh({ device: true });
}

// ---- start ----

async function start() {
  setNavigator(go);
  setDeviceSetter(setDevice);
  try {
    state.session = await api.get("/api/session");
  } catch (e) {
    if (e.status === 401) { location.reload(); return; }
    view.replaceChildren(h("p", { class: "error" }, e.message));
    return;
  }
  state.deviceId = (state.session.credential && state.session.credential.device_id) || 0;
  document.addEventListener("click", (e) => {
    const a = e.target.closest("a[data-link]");
    if (!a || e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
    e.preventDefault();
    go(a.getAttribute("href"));
  });
  window.addEventListener("popstate", render);
  document.addEventListener("visibilitychange", reportPresence);
  window.addEventListener("pagehide", reportPresence);
  setInterval(reportPresence, PRESENCE_EVERY);
  setInterval(() => refresh({ tick: true }), 15000); // "waiting 4m" stays true
  if ("serviceWorker" in navigator) {
    navigator.serviceWorker.addEventListener("message", (e) => {
      if (e.data && e.data.type === "navigate" && typeof e.data.url === "string" && e.data.url.startsWith("/")) go(e.data.url);
    });
  }
  render();
  connect();
  // The subscription is re-sent at every start, and remade if the
  // daemon's key changed; this never asks for permission.
  push.register().then(() => push.sync(state.session, state.session.credential && state.session.credential.name))
    .then((id) => { if (id) setDevice(id); })
    .catch((e) => { state.pushError = e.message; refresh({ push: true }); });
}

start();
