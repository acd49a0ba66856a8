// The pairing page: with a code in the link's fragment (never sent to a
// server), a tap signs this browser in; without one, it says how to pair.
// Opening the page does nothing by itself.
"use strict";

function guessName() {
  const ua = navigator.userAgent;
  const os = /iPhone/.test(ua) ? "iPhone" : /iPad/.test(ua) ? "iPad" : /Android/.test(ua) ? "Android"
    : /Mac OS X/.test(ua) ? "Mac" : /Windows/.test(ua) ? "Windows" : /Linux/.test(ua) ? "Linux" : "";
  const browser = /Firefox\//.test(ua) ? "Firefox" : /Edg\//.test(ua) ? "Edge"
    : /Chrom(e|ium)\//.test(ua) ? "Chrome" : /Safari\//.test(ua) ? "Safari" : "Browser";
  return os ? browser + " on " + os : browser;
}

document.addEventListener("DOMContentLoaded", async () => {
  const code = location.hash.replace(/^#/, "");
  if (!code) {
    // A SameSite=Strict cookie is not sent on a navigation from another
    // site; this same-origin request carries it. Already signed in: load
    // the app.
    try {
      const r = await fetch("/api/session", { credentials: "same-origin" });
      if (r.ok && location.pathname !== "/pair") location.reload();
      else if (r.ok) location.replace("/");
    } catch (_) { /* stay on this page */ }
    return;
  }
  history.replaceState(null, "", "/pair"); // keep the code out of history
  document.getElementById("unpaired").hidden = true;
  const form = document.getElementById("redeem");
  const name = document.getElementById("name");
  const error = document.getElementById("error");
  form.hidden = false;
  name.value = guessName();
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const go = document.getElementById("go");
    go.disabled = true;
    error.hidden = true;
    try {
      const r = await fetch("/api/pair/redeem", {
        method: "POST", credentials: "same-origin",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ code, name: name.value }),
      });
      if (r.ok) { location.replace("/"); return; }
      const body = await r.json().catch(() => ({}));
      error.textContent = (body.error && body.error.message) || "Pairing failed (" + r.status + ").";
    } catch (e) {
      error.textContent = "Cannot reach attn: " + e.message;
    }
    error.hidden = false;
    go.disabled = false;
  });
});
