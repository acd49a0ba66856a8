// attn-opencode-plugin v1: written by `attn integration install opencode`, removed by
// `attn integration uninstall opencode`. attn replaces this file when it is installed again:
// keep changes of your own in another plugin file.
//
// It hands OpenCode's events that mean "the agent waits on you" (permission.asked, the older
// permission.updated, question.asked) or "the turn ended" (session.idle) to `attn hook opencode`
// on standard input, as {type, properties, cwd}. Events of child sessions (sub-agents, whose
// session has a parentID) are skipped. attn must be on OpenCode's PATH; when attn is missing or
// its daemon is down, nothing happens: `attn hook` exits 0 within a second, and this plugin
// gives up on it after two.
import { spawn } from "node:child_process";

const FORWARD = new Set(["permission.asked", "permission.updated", "question.asked", "session.idle"]);

export const AttnPlugin = async ({ client, directory }) => {
  // sessionID → parentID ("" for a top-level session), learnt from session events or asked for.
  const parents = new Map();
  const parentOf = async (id) => {
    if (!id) return "";
    if (parents.has(id)) return parents.get(id);
    let parent = "";
    try {
      const res = await client?.session?.get({ path: { id } });
      parent = res?.data?.parentID ?? "";
    } catch {
      // Unknown: treat it as the person's own session.
    }
    parents.set(id, parent);
    return parent;
  };
  const send = (payload) =>
    new Promise((resolve) => {
      let child;
      try {
        child = spawn("attn", ["hook", "opencode"], { stdio: ["pipe", "ignore", "ignore"] });
      } catch {
        resolve();
        return;
      }
      const timer = setTimeout(() => {
        try {
          child.kill();
        } catch {}
        resolve();
      }, 2000);
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      child.on("error", done);
      child.on("close", done);
      child.stdin.on("error", () => {});
      child.stdin.end(JSON.stringify(payload));
    });
  return {
    event: async ({ event }) => {
      const type = event?.type;
      const props = event?.properties ?? {};
      const info = props.info;
      if ((type === "session.created" || type === "session.updated") && info?.id) {
        parents.set(info.id, info.parentID ?? "");
        return;
      }
      if (type === "session.deleted" && info?.id) {
        parents.delete(info.id);
        return;
      }
      if (!FORWARD.has(type)) return;
      if (await parentOf(props.sessionID ?? info?.id ?? "")) return; // a child session
      await send({ type, properties: props, cwd: directory ?? "" });
    },
  };
};
