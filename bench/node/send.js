// Bench-only: sends N Web Push messages with node's web-push to the
// loopback sink, with the same flags, payload size, concurrency model and
// output as the Go harness (bench/cmd/attnbench/harness.go), for bench/run.
//
// Each message is built by web-push's own generateRequestDetails() (a fresh
// ECDH key, aes128gcm via http_ece, and a VAPID JWT signed per message:
// the body of code sendNotification() runs) and POSTed with node's
// http.request through a keep-alive http.Agent. sendNotification() itself
// always uses the https module, and the sink speaks plain HTTP on loopback,
// like it does for the Go senders.
'use strict';

const crypto = require('crypto');
const http = require('http');
const webpush = require('web-push');

function flags(argv) {
  const f = {sink: '', n: 20000, warmup: 500, conc: 8, payload: 1024, 'max-time': 60};
  for (let i = 0; i < argv.length; i++) {
    const m = /^-{1,2}([a-z-]+)(?:=(.*))?$/.exec(argv[i]);
    if (!m || !(m[1] in f)) fail(`unknown flag ${argv[i]}`);
    const v = m[2] !== undefined ? m[2] : argv[++i];
    f[m[1]] = typeof f[m[1]] === 'number' ? Number(v) : v;
  }
  return f;
}

function fail(msg) {
  process.stderr.write(msg + '\n');
  process.exit(1);
}

const cfg = flags(process.argv.slice(2));
const sinkURL = new URL(cfg.sink);
if (sinkURL.protocol !== 'http:' || !['127.0.0.1', 'localhost', '[::1]'].includes(sinkURL.hostname)) {
  fail(`-sink ${cfg.sink}: want http://127.0.0.1:PORT (loopback only)`);
}
if (!(cfg.n >= 1 && cfg.n <= 1e6 && cfg.conc >= 1 && cfg.conc <= 1024 && cfg.warmup >= 0 && cfg.payload >= 0)) {
  fail('bad counts');
}

// Same settings in spirit as the Go client: keep-alive, up to 16 sockets
// per host (8 are used with 8 in flight), 10 s timeout.
const agent = new http.Agent({keepAlive: true, maxSockets: 16, maxFreeSockets: 16});

const vapid = webpush.generateVAPIDKeys();
webpush.setVapidDetails('mailto:bench@attn.example', vapid.publicKey, vapid.privateKey);
const ua = crypto.createECDH('prime256v1');
ua.generateKeys();
const subscription = {
  endpoint: cfg.sink + '/push/node-web-push',
  keys: {p256dh: ua.getPublicKey('base64url'), auth: crypto.randomBytes(16).toString('base64url')},
};
const payload = crypto.randomBytes(cfg.payload);
const options = {TTL: 600, urgency: 'high', topic: 'attn-bench', contentEncoding: 'aes128gcm'};

function post(details) {
  return new Promise((resolve, reject) => {
    const u = new URL(details.endpoint);
    const req = http.request({
      hostname: u.hostname, port: u.port, path: u.pathname, method: details.method,
      headers: details.headers, agent, timeout: 10000,
    }, res => {
      res.resume();
      res.on('end', () => res.statusCode === 201 ? resolve() : reject(new Error('status ' + res.statusCode)));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end(details.body);
  });
}

function send() {
  return post(webpush.generateRequestDetails(subscription, payload, options));
}

async function drive(conc, n, maxSecs) {
  const deadline = Date.now() + maxSecs * 1000;
  let next = 0, ok = 0, errors = 0, firstErr = null;
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  const worker = async () => {
    while (++next <= n && Date.now() < deadline) {
      try {
        await send();
        ok++;
      } catch (e) {
        errors++;
        firstErr = firstErr || e;
      }
    }
  };
  await Promise.all(Array.from({length: conc}, worker));
  const secs = Number(process.hrtime.bigint() - t0) / 1e9;
  const cpu = process.cpuUsage(cpu0);
  return {sent: ok, errors, secs, cpuUs: cpu.user + cpu.system, firstErr};
}

function sinkStats() {
  return new Promise((resolve, reject) => {
    http.get(cfg.sink + '/stats', res => {
      let s = '';
      res.on('data', d => { s += d; });
      res.on('end', () => {
        const m = /requests=(\d+) bytes=(\d+) cpu_us=(\d+)/.exec(s);
        m ? resolve({requests: Number(m[1]), cpuUs: Number(m[3])}) : reject(new Error('sink /stats: ' + s));
      });
    }).on('error', reject);
  });
}

(async () => {
  if (cfg.warmup > 0) {
    const w = await drive(cfg.conc, cfg.warmup, cfg['max-time']);
    if (w.errors > 0) fail(`warm-up: ${w.errors} of ${cfg.warmup} sends failed, first: ${w.firstErr}`);
  }
  const s0 = await sinkStats();
  const r = await drive(cfg.conc, cfg.n, cfg['max-time']);
  const s1 = await sinkStats();
  const got = s1.requests - s0.requests;
  if (got < r.sent || got > r.sent + r.errors) fail(`the sink counted ${got} requests for ${r.sent} successful sends`);
  const rate = r.sent / r.secs;
  const per = us => us / Math.max(r.sent, 1);
  const name = 'node-web-push';
  const what = `node ${process.version} web-push ${require('web-push/package.json').version}: generateRequestDetails() per message (fresh ECDH key, http_ece, JWT signed per message), POSTed with http.request on a keep-alive agent`;
  console.log(`${name.padEnd(20)} ${rate.toFixed(0).padStart(7)} msgs/s  (${r.sent} sent in ${r.secs.toFixed(2)}s, ${cfg.conc} in flight, ${cfg.payload}-byte payload, ${r.errors} errors; CPU per message: ${per(r.cpuUs).toFixed(1)} µs in the sender, ${per(s1.cpuUs - s0.cpuUs).toFixed(1)} µs in the sink) — ${what}`);
  console.log(`RESULT name=${name} rate=${rate.toFixed(1)} sent=${r.sent} errors=${r.errors} seconds=${r.secs.toFixed(3)} cpu_us_per_msg=${per(r.cpuUs).toFixed(1)} sink_cpu_us_per_msg=${per(s1.cpuUs - s0.cpuUs).toFixed(1)}`);
  if (r.errors > 0) {
    process.stderr.write(`${name}: ${r.errors} sends failed, first: ${r.firstErr}\n`);
    process.exit(1);
  }
  agent.destroy();
})().catch(e => fail(String(e && e.stack || e)));
