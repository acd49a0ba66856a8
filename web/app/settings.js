// Settings for this device: notifications on or off (permission is asked
// only from a tap), its name, which kinds may interrupt it, a test
// notification; every device with its last delivery outcome (unticking one
// removes it); every signed-in browser (sign one or all out).
import * as api from "./api.js";
import * as push from "./push.js";
import { state, setPage, setDevice } from "./state.js";
import { h, ago } from "./ui.js";

const KINDS = [
  ["blocked", "Blocked agents", "an agent waits on an approval or a question"],
  ["asked", "Asked", "an agent or a script called attn notify"],
  ["finished", "Finished turns", "an agent finished and waits for its next task"],
  ["error", "attn's own errors", "attn cannot reach a device, or write its store"],
];

export function renderSettings(root) {
  let devices = [];
  let creds = [];
  let current = 0;
  let subscribed = false;
  let note = { device: "", test: "", devices: "", creds: "" };
  let busy = false;
  let confirmAll = false;
  let nameDraft = null; // what the person is typing, kept across redraws

  const load = async () => {
    try {
      const [d, c] = await Promise.all([api.get("/api/devices"), api.get("/api/credentials")]);
      devices = d.devices;
      creds = c.credentials;
      current = c.current;
      subscribed = await push.hasSubscription();
    } catch (e) {
      note.devices = e.message;
    }
    draw();
  };

  const act = async (key, fn) => {
    busy = true;
    note[key] = "";
    draw();
    try {
      await fn();
    } catch (e) {
      note[key] = e.message;
    }
    busy = false;
    await load();
  };

  const me = () => devices.find((d) => d.device_id === state.deviceId);
  const myName = () => (me() && me().name) || (state.session.credential && state.session.credential.name) || "";

  const saveName = (name) => act("device", async () => {
    nameDraft = null;
    if (state.session.credential) {
      await api.patch("/api/session", { name });
      state.session.credential.name = name;
    }
    if (state.deviceId) await api.patch("/api/devices/" + state.deviceId, { name });
    note.device = "Saved.";
  });

  const setKind = (kind, on) => act("device", async () => {
    await api.patch("/api/devices/" + state.deviceId, { kinds: { [kind]: on } });
  });

  const turnOn = () => act("device", async () => {
    const id = await push.turnOn(state.session, myName());
    state.pushError = "";
    setDevice(id);
  });

  const turnOff = () => act("device", async () => {
    await push.turnOff(state.session);
    setDevice(0);
  });

  const test = () => act("test", async () => {
    const r = await api.post("/api/test", {});
    note.test = r.sent ? `Sent to every device${r.detail ? ": " + r.detail : "."}` : `Not sent: ${r.detail || "no device took it"}`;
  });

  const removeDevice = (d) => act("devices", async () => {
    if (d.device_id === state.deviceId) {
      // This browser: drop its subscription too, or the next start would
      // register it again.
      await push.turnOff(state.session);
      setDevice(0);
      return;
    }
    await api.del("/api/devices/" + d.device_id);
  });

  const signOut = (c) => act("creds", async () => {
    await api.del("/api/credentials/" + c.id);
    if (c.id === current) location.replace("/");
  });

  const revokeAll = () => {
    if (!confirmAll) {
      confirmAll = true;
      draw();
      setTimeout(() => { confirmAll = false; draw(); }, 5000);
      return;
    }
    act("creds", async () => {
      await api.del("/api/credentials");
      location.replace("/");
    });
  };

  const draw = () => {
    const perm = push.permission();
    const dev = me();
    const on = !!state.deviceId;
    let status;
    if (!push.supported()) status = "This browser cannot get push notifications here. On iPhone and iPad, add attn to the Home Screen (Share › Add to Home Screen) and open it from there.";
    else if (perm === "denied") status = "Notifications are blocked for this site: allow them in the browser's site settings.";
    else if (on) status = subscribed ? "On: this device gets notifications." : "On: this device is registered for notifications.";
    else status = "Off: this device gets no notifications.";
    const nameInput = h("input", { id: "dev-name", value: nameDraft ?? myName(), maxlength: "100", autocomplete: "off",
      oninput: (e) => { nameDraft = e.target.value; } });
    const hadFocus = document.activeElement && document.activeElement.id === "dev-name";
    root.replaceChildren(
      h("h1", {}, "Settings"),
      h("section", { class: "panel", "aria-labelledby": "this-h" },
        h("h2", { id: "this-h" }, "This device"),
        h("form", { class: "name-row", onsubmit: (e) => { e.preventDefault(); saveName(nameInput.value.trim()); } },
          h("label", { for: "dev-name" }, "Name"), nameInput,
          h("button", { type: "submit", disabled: busy }, "Save")),
        h("p", { class: "status " + (on ? "on" : "off"), id: "push-status" }, status),
        state.pushError && !on ? h("p", { class: "error" }, "Could not subscribe: " + state.pushError) : null,
        h("div", { class: "buttons" },
          on ? h("button", { id: "push-off", type: "button", onclick: turnOff, disabled: busy }, "Turn off")
            : h("button", { id: "push-on", class: "primary", type: "button", onclick: turnOn, disabled: busy || !push.supported() || perm === "denied" }, "Turn on notifications"),
          h("button", { id: "test", type: "button", onclick: test, disabled: busy }, "Send a test notification")),
        note.test ? h("p", { class: "note", id: "test-note" }, note.test) : null,
        h("fieldset", { class: "kinds", disabled: !dev || busy },
          h("legend", {}, "Interrupt this device for"),
          KINDS.map(([k, label, help]) => h("label", { class: "kind" },
            h("input", { type: "checkbox", name: k, checked: dev ? !!dev.kinds[k] : k !== "finished", onchange: (e) => setKind(k, e.target.checked) }),
            h("span", {}, h("strong", {}, label), h("small", {}, help)))),
          h("p", { class: "hint" }, dev ? "The inbox lists everything waiting, whatever you choose here."
            : "Turn notifications on to choose what interrupts this device.")),
        note.device ? h("p", { class: note.device === "Saved." ? "note" : "error" }, note.device) : null),
      h("section", { class: "panel", "aria-labelledby": "devs-h" },
        h("h2", { id: "devs-h" }, "Devices that get notifications"),
        devices.length ? h("ul", { class: "devices" }, devices.map((d) => h("li", { dataset: { device: d.device_id } },
          h("label", { class: "device" },
            h("input", { type: "checkbox", checked: true, disabled: busy, "aria-label": "Keep " + (d.name || "device " + d.device_id), onchange: () => removeDevice(d) }),
            h("span", {},
              h("strong", {}, d.name || "device " + d.device_id, d.device_id === state.deviceId ? h("em", {}, " · this device") : null),
              h("small", {}, hostOf(d.push_service)),
              h("small", { class: outcomeClass(d) }, outcome(d)))))))
          : h("p", { class: "empty" }, "No device gets notifications yet."),
        h("p", { class: "hint" }, "Untick a device to stop its notifications."),
        note.devices ? h("p", { class: "error" }, note.devices) : null),
      h("section", { class: "panel", "aria-labelledby": "creds-h" },
        h("h2", { id: "creds-h" }, "Signed-in browsers"),
        h("ul", { class: "creds" }, creds.map((c) => h("li", { dataset: { credential: c.id } },
          h("span", {},
            h("strong", {}, c.name || "browser", c.id === current ? h("em", {}, " · this browser") : null),
            h("small", {}, `paired ${ago(c.paired_at)} ago${c.last_seen_at ? " · seen " + ago(c.last_seen_at) + " ago" : ""}`)),
          h("button", { type: "button", class: "small", disabled: busy, onclick: () => signOut(c) }, "Sign out")))),
        h("div", { class: "buttons" },
          h("button", { id: "revoke-all", type: "button", class: "danger", disabled: busy, onclick: revokeAll },
            confirmAll ? "Tap again: sign every browser out" : "Revoke all")),
        h("p", { class: "hint" }, "Revoking signs a browser out and stops its notifications; pair again with attn pair."),
        note.creds ? h("p", { class: "error" }, note.creds) : null),
    );
    if (hadFocus) nameInput.focus();
  };

  setPage((what) => { if (what.device || what.push) load(); });
  draw();
  load();
}

function hostOf(u) {
  try { return new URL(u).host; } catch (_) { return u || ""; }
}

function outcome(d) {
  if (!d.last_outcome) return "no notification sent yet";
  if (d.last_outcome === "delivered") return `last push delivered ${ago(d.last_attempt_at)} ago`;
  return `last push failed: ${d.last_detail || d.last_outcome}`;
}

function outcomeClass(d) {
  return !d.last_outcome ? "" : d.last_outcome === "delivered" ? "ok" : "bad";
}
