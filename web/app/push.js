// This browser's push subscription: made with the daemon's VAPID key, sent
// to the daemon at every app start (the daemon treats a known endpoint as
// the same device), and remade when the daemon's key changed.
import * as api from "./api.js";

export function supported() {
  return "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;
}

export function permission() {
  return "Notification" in window ? Notification.permission : "unsupported";
}

let registration = null;

// register installs the service worker (push-only) once.
export async function register() {
  if (!("serviceWorker" in navigator)) return null;
  if (!registration) {
    await navigator.serviceWorker.register("/sw.js", { scope: "/" });
    registration = await navigator.serviceWorker.ready;
  }
  return registration;
}

function keyBytes(b64url) {
  const pad = "=".repeat((4 - (b64url.length % 4)) % 4);
  const raw = atob((b64url + pad).replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(raw, (c) => c.charCodeAt(0));
}

function sameKey(buf, key) {
  if (!buf) return false;
  const a = new Uint8Array(buf);
  if (a.length !== key.length) return false;
  return a.every((v, i) => v === key[i]);
}

function withTimeout(p, ms, what) {
  return Promise.race([p, new Promise((_, rej) => setTimeout(() => rej(new Error(what + " timed out")), ms))]);
}

// sync makes sure this browser's subscription exists (when permission is
// granted), uses the server's current key, and is registered with the
// daemon and linked to this browser's credential. It returns the device
// id, or 0 when there is no subscription; it throws when something failed.
export async function sync(session, name) {
  if (!supported() || Notification.permission !== "granted") return 0;
  const reg = await register();
  const key = keyBytes(session.vapid_public_key);
  let sub = await reg.pushManager.getSubscription();
  if (sub && !sameKey(sub.options.applicationServerKey, key)) {
    // Made with an older key: the daemon cannot push to it any more.
    await api.del("/api/push/subscribe", { endpoint: sub.endpoint }).catch(() => {});
    await sub.unsubscribe();
    sub = null;
  }
  if (!sub) {
    sub = await withTimeout(reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key }),
      20000, "subscribing with the browser's push service");
  }
  const res = await api.post("/api/push/subscribe", { ...sub.toJSON(), name: name || "" });
  const cred = session.credential;
  if (cred && cred.device_id !== res.device_id) {
    await api.patch("/api/session", { device_id: res.device_id });
    cred.device_id = res.device_id;
  }
  return res.device_id;
}

// turnOn asks for permission (call it from a tap only) and subscribes.
export async function turnOn(session, name) {
  if (!supported()) throw new Error("This browser cannot receive push notifications. On iPhone and iPad, add attn to the Home Screen first (Share › Add to Home Screen) and open it from there.");
  const p = await Notification.requestPermission();
  if (p !== "granted") throw new Error(p === "denied"
    ? "Notifications are blocked for this site: allow them in the browser's site settings, then try again."
    : "Notifications were not allowed.");
  return sync(session, name);
}

// turnOff removes this browser's subscription, here and on the daemon.
export async function turnOff(session) {
  const reg = await register();
  const sub = reg && await reg.pushManager.getSubscription();
  if (sub) {
    await api.del("/api/push/subscribe", { endpoint: sub.endpoint }).catch(() => {});
    await sub.unsubscribe();
  } else if (session.credential && session.credential.device_id) {
    await api.del("/api/devices/" + session.credential.device_id).catch(() => {});
  }
  if (session.credential) {
    await api.patch("/api/session", { device_id: 0 });
    session.credential.device_id = 0;
  }
}

// hasSubscription reports whether this browser holds a push subscription.
export async function hasSubscription() {
  const reg = await register().catch(() => null);
  return !!(reg && await reg.pushManager.getSubscription());
}
