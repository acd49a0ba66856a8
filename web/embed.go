// Package web holds attn's web app, embedded in the binary: an installable
// PWA of plain HTML, CSS and JavaScript modules (no build step). index.html
// is the shell of every page (inbox, pane card, settings; app/ holds its
// modules and style), pair.html signs a browser in (and tells an unpaired
// one how), sw.js is the push-only service worker, and manifest.webmanifest
// with icons/ make it installable on Android and iOS Home Screens.
// internal/api serves these files.
package web

import "embed"

// Files is the web app. Paths are relative to this directory, e.g.
// "index.html", "app/main.js", "icons/icon-192.png".
//
//go:embed index.html pair.html pair.js sw.js manifest.webmanifest app icons
var Files embed.FS
