// The inbox: everything waiting on the person across hosts, from live
// state — blocked agents first with their question, the rest below.
// It lists everything, whatever this device chose to be interrupted by.
import { state, setPage } from "./state.js";
import { h, ago, paneHref, agentLabel, statusLabel } from "./ui.js";

export function renderInbox(root) {
  const draw = () => {
    const panes = [...state.panes.values()];
    const blocked = panes.filter((p) => p.status === "blocked")
      .sort((a, b) => new Date(a.since) - new Date(b.since));
    const rest = panes.filter((p) => p.status !== "blocked");
    root.replaceChildren(
      h("section", { class: "waiting", "aria-labelledby": "waiting-h" },
        h("h1", { id: "waiting-h" }, blocked.length ? `Waiting on you · ${blocked.length}` : "Waiting on you"),
        blocked.length
          ? h("ul", { class: "cards" }, blocked.map(blockedCard))
          : h("p", { class: "empty" }, state.live || panes.length ? "Nothing is waiting on you." : "Connecting…")),
      rest.length ? h("section", { class: "others", "aria-labelledby": "others-h" },
        h("h2", { id: "others-h" }, "Other panes"),
        h("ul", { class: "rows" }, rest.map(otherRow))) : null,
    );
  };
  setPage(draw);
  draw();
}

function blockedCard(p) {
  const q = p.question;
  const prompt = (q && q.prompt) || p.headline || "Waiting for you";
  return h("li", { class: "card blocked", dataset: { pane: p.host + "/" + p.pane } },
    h("a", { class: "card-link", href: paneHref(p.host, p.pane), "data-link": true },
      h("div", { class: "card-head" },
        h("span", { class: "name" }, p.name || p.pane),
        h("span", { class: "since", title: "waiting since " + new Date(p.since).toLocaleString() }, ago(p.since))),
      h("div", { class: "meta" }, `${agentLabel(p.agent)} · ${p.host} · ${p.pane}`),
      h("p", { class: "prompt" }, prompt),
      q && q.options && q.options.length
        ? h("ol", { class: "opts" }, q.options.map((o, i) => h("li", { class: i === q.selected ? "sel" : "" }, o)))
        : null));
}

function otherRow(p) {
  return h("li", { class: "row " + p.status, dataset: { pane: p.host + "/" + p.pane } },
    h("a", { href: paneHref(p.host, p.pane), "data-link": true },
      h("span", { class: "dot", "aria-hidden": "true" }),
      h("span", { class: "name" }, p.name || p.pane),
      h("span", { class: "meta" }, `${p.agent ? agentLabel(p.agent) + " · " : ""}${p.host} · ${p.pane}`),
      h("span", { class: "state" }, `${statusLabel[p.status] || p.status} ${ago(p.since)}`)));
}
