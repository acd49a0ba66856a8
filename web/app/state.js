// The app's shared state and the hooks between the pages and main.js.

export const state = {
  session: null, // GET /api/session
  deviceId: 0, // this browser's push device, 0 for none
  panes: new Map(), // "host/pane" → pane, kept live by the event stream
  seq: 0, // the last board change applied
  live: false, // the event stream is connected
  pushError: "", // why the subscription could not be synced at start
};

let page = null;

// setPage makes fn the current page's updater: it is called with what
// changed ({all}, {pane: "host/%3"}, {tick}, {device}, {push}).
export function setPage(fn) {
  page = fn;
}

// changed tells the current page that state changed.
export function changed(what) {
  if (page) page(what);
}

let navigator_ = (url) => { location.href = url; };

// navigate moves the app to url without reloading.
export function navigate(url) {
  navigator_(url);
}

// setNavigator is main.js's router.
export function setNavigator(fn) {
  navigator_ = fn;
}

let deviceSetter = () => {};

// setDevice records this browser's push device (main.js restarts the
// stream and presence).
export function setDevice(id) {
  deviceSetter(id);
}

export function setDeviceSetter(fn) {
  deviceSetter = fn;
}
