// The pane card: one agent, its question with answer buttons, a free-text
// composer, and the last lines of its screen. Opened from a notification
// (?fp=<fingerprint of the announced wait>), it says when that wait was
// already answered.
import * as api from "./api.js";
import { state, setPage } from "./state.js";
import { h, ago, agentLabel, statusLabel } from "./ui.js";

export function renderCard(root, host, pane, params) {
  const key = host + "/" + pane;
  const fp = params.get("fp") || "";
  const compose = params.get("compose") === "1"; // a free-text wait
  let detail = null; // GET /api/panes/{host}/{pane}
  let gone = false;
  let failure = params.get("answer") === "failed" ? "That answer was not taken: the question may have changed. Check the screen below." : "";
  let sent = "";
  let loading = null;

  const load = async () => {
    if (loading) return loading;
    loading = (async () => {
      try {
        detail = await api.get("/api/panes/" + encodeURIComponent(host) + "/" + encodeURIComponent(pane));
        gone = false;
      } catch (e) {
        if (e.status === 404) { gone = true; detail = null; } else failure = e.message;
      }
      loading = null;
      draw();
    })();
    return loading;
  };

  const answer = async (i, label) => {
    failure = "";
    try {
      const res = await api.post("/api/push/answer", { nonce: detail.nonce, option_index: i }, { "X-Attn-Surface": "card" });
      if (res && res.outcome && res.outcome !== "applied") failure = `Not applied: ${res.detail || res.outcome}`;
      else sent = `Sent “${label}”.`;
    } catch (e) {
      failure = e.message;
    }
    load();
  };

  const draw = () => {
    const p = detail || state.panes.get(key);
    const back = h("a", { class: "back", href: "/", "data-link": true }, "‹ Inbox");
    if (!p) {
      root.replaceChildren(back, h("section", { class: "card-page" },
        gone ? h("p", { class: "banner" }, "This pane is gone: it was closed, or its host dropped off.")
          : h("p", { class: "loading" }, "Loading…")));
      return;
    }
    const blocked = p.status === "blocked";
    const answered = fp && (!blocked || (p.fingerprint && p.fingerprint !== fp));
    const q = blocked ? p.question : null;
    const canAnswer = !!(state.session && state.session.answer && detail && detail.nonce);
    root.replaceChildren(back, h("section", { class: "card-page", "aria-labelledby": "card-h" },
      h("div", { class: "card-title" },
        h("h1", { id: "card-h" }, p.name || p.pane),
        h("span", { class: "pill " + p.status }, statusLabel[p.status] || p.status)),
      h("div", { class: "meta" }, `${agentLabel(p.agent)} · ${p.host} · ${p.pane} · ${blocked ? "waiting" : statusLabel[p.status] || p.status} ${ago(p.since)}`),
      answered ? h("p", { class: "banner ok", role: "status" }, "Already answered: this question is no longer waiting.") : null,
      sent ? h("p", { class: "banner ok", role: "status" }, sent) : null,
      failure ? h("p", { class: "banner", role: "alert" }, failure) : null,
      blocked ? h("div", { class: "question" },
        h("p", { class: "prompt" }, (q && q.prompt) || p.headline || "Waiting for you"),
        q && q.options && q.options.length ? h("div", { class: "answers" },
          q.options.map((o, i) => h("button", {
            class: "answer", type: "button", disabled: !canAnswer,
            onclick: () => answer(i, o),
          }, h("span", { class: "num" }, String(i + 1)), h("span", {}, o)))) : null,
        h("form", { class: "composer", onsubmit: (e) => e.preventDefault() },
          h("label", { for: "reply", class: "sr" }, "Reply"),
          h("textarea", { id: "reply", rows: "2", placeholder: "Type a reply…", disabled: true }),
          h("button", { type: "submit", disabled: true }, "Send")),
        h("p", { class: "hint" }, [
          canAnswer ? "" : state.session && state.session.answer
            ? "Answer from the notification, or at the terminal. "
            : "Answering from here comes with attn's reply path; answer at the terminal for now. ",
          compose ? "This agent waits for typed text: type it at the terminal for now." : "Typed replies: at the terminal for now.",
        ].join("")))
        : h("p", { class: "quiet" }, p.status === "working" ? "Working: nothing to answer." : "Nothing to answer."),
      h("h2", { class: "screen-h" }, "Screen"),
      h("pre", { class: "screen", tabindex: "0", "aria-label": "Last lines of the pane's screen" },
        detail && detail.screen ? detail.screen.join("\n") : "…"),
    ));
    const pre = root.querySelector(".screen");
    pre.scrollTop = pre.scrollHeight;
  };

  setPage((what) => {
    if (what.all || what.pane === key) load();
    else if (what.tick || what.device) draw();
  });
  draw();
  load();
  if (params.has("answer")) navigateClean();

  function navigateClean() {
    // Keep ?fp (the card must still say "answered" later), drop one-off notes.
    const u = new URL(location.href);
    u.searchParams.delete("answer");
    history.replaceState(null, "", u.pathname + u.search);
  }
}
