// Calls to attn's API from the web app: same origin, the credential cookie,
// JSON in and out. A refused call throws an Error carrying the API's
// message (which says what to do) and status.

export class APIError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

export async function call(method, path, body, headers) {
  const init = { method, credentials: "same-origin", headers: { ...headers } };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let r;
  try {
    r = await fetch(path, init);
  } catch (e) {
    throw new APIError(0, 0, "Cannot reach attn: is `attn serve` running, and this device online?");
  }
  if (r.status === 204) return null;
  const data = await r.json().catch(() => null);
  if (!r.ok) {
    const e = data && data.error;
    // An error body, or (a refused answer) a result that says why.
    throw new APIError(r.status, e ? e.code : 0, e ? e.message : (data && data.detail) || `attn answered ${r.status}`);
  }
  return data;
}

export const get = (path) => call("GET", path);
export const post = (path, body, headers) => call("POST", path, body ?? {}, headers);
export const patch = (path, body) => call("PATCH", path, body);
export const del = (path, body) => call("DELETE", path, body);
