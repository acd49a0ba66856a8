// Small DOM and formatting helpers shared by the pages.

// h builds an element: h("p", {class: "x", onclick: f}, "text", child…).
// Strings become text nodes: nothing is ever parsed as HTML.
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2), v);
    else if (k === "class") el.className = v;
    else if (k === "dataset") Object.assign(el.dataset, v);
    else if (v === true) el.setAttribute(k, "");
    else el.setAttribute(k, String(v));
  }
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

// ago says how long since t (an ISO time): "12s", "4m", "2h 5m", "3d".
export function ago(t, now = Date.now()) {
  const s = Math.max(0, Math.round((now - new Date(t).getTime()) / 1000));
  if (s < 60) return s + "s";
  const m = Math.floor(s / 60);
  if (m < 60) return m + "m";
  const hrs = Math.floor(m / 60);
  if (hrs < 24) return m % 60 ? `${hrs}h ${m % 60}m` : hrs + "h";
  return Math.floor(hrs / 24) + "d";
}

// paneHref is the card's path for host/pane.
export function paneHref(host, pane) {
  return "/panes/" + encodeURIComponent(host) + "/" + encodeURIComponent(pane);
}

// agentLabel names the CLI in a pane.
export function agentLabel(agent) {
  const names = { claude: "Claude Code", codex: "Codex", gemini: "Gemini CLI", opencode: "OpenCode",
    cursor: "Cursor", aider: "Aider", amp: "Amp", copilot: "Copilot" };
  return names[agent] || agent || "no agent";
}

export const statusLabel = { blocked: "needs you", working: "working", idle: "idle", done: "finished", unknown: "no agent" };
