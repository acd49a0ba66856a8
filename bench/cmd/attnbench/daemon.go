package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// daemonMain drives a running `attn serve` (started by bench/run with
// --allow-insecure-push-endpoints on loopback) through its API:
//
//  1. registers -devices devices whose endpoints are the sink;
//  2. POSTs /api/notify back to back (one in flight, each a fan-out to
//     every device) for -load, sampling the daemon's VmRSS from
//     /proc/PID/status every 50 ms; reports the largest, and VmHWM;
//  3. registers more devices up to -fanout-devices and times
//     -fanout-calls /api/notify calls: each is one notification fanned
//     out to every device, answered when every push service answered.
//
// The sink's request count must grow by exactly one per device per call.
func daemonMain(args []string) {
	fs := flag.NewFlagSet("daemon", flag.ExitOnError)
	api := fs.String("api", "", "the daemon's API, http://127.0.0.1:PORT")
	tokenFile := fs.String("token-file", "", "the daemon's api-token file")
	pid := fs.Int("pid", 0, "the daemon's process id (for /proc/PID/status)")
	sink := fs.String("sink", "", "the loopback sink, http://127.0.0.1:PORT")
	devices := fs.Int("devices", 20, "devices registered during the load phase")
	load := fs.Duration("load", 20*time.Second, "how long to send steadily")
	fanDevices := fs.Int("fanout-devices", 100, "devices for the fan-out phase")
	fanCalls := fs.Int("fanout-calls", 20, "timed fan-out calls")
	fs.Parse(args)
	for _, u := range []string{*api, *sink} {
		if pu, err := url.Parse(u); err != nil || pu.Scheme != "http" || !isLoopback(pu.Hostname()) {
			fatalf("%q: want http://127.0.0.1:PORT (loopback only)", u)
		}
	}
	if *pid <= 0 || *devices < 1 || *devices > *fanDevices || *fanDevices > 1000 || *fanCalls < 1 || *fanCalls > 1000 || *load > 5*time.Minute {
		fatalf("bad -pid, -devices, -fanout-devices, -fanout-calls or -load")
	}
	tok, err := os.ReadFile(*tokenFile)
	if err != nil {
		fatalf("API token: %v", err)
	}
	d := &daemonClient{api: *api, token: strings.TrimSpace(string(tok)), http: &http.Client{Timeout: 30 * time.Second}}

	rss0 := procStatusKB(*pid, "VmRSS")
	d.register(0, *devices, *sink)
	sink0 := sinkRequests(*sink)

	// Steady load, sampling RSS.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var maxRSS, samples int
	var halves [2]int // max VmRSS in the first and the second half of the load
	loadStart := time.Now()
	wg.Go(func() {
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			kb := procStatusKB(*pid, "VmRSS")
			maxRSS = max(maxRSS, kb)
			h := min(int(2*time.Since(loadStart) / *load), 1)
			halves[h] = max(halves[h], kb)
			samples++
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	})
	var loadLat []time.Duration
	start := time.Now()
	for time.Since(start) < *load && len(loadLat) < 200000 {
		loadLat = append(loadLat, d.notify(fmt.Sprintf("bench load %d", len(loadLat)), *devices))
	}
	loadSecs := time.Since(start).Seconds()
	close(stop)
	wg.Wait()
	hwm := procStatusKB(*pid, "VmHWM")
	pushes := sinkRequests(*sink) - sink0
	if want := len(loadLat) * *devices; pushes != want {
		fatalf("sink got %d pushes during the load phase, want %d", pushes, want)
	}
	fmt.Printf("daemon load:   %d notifications × %d devices = %d pushes in %.1fs (%.0f pushes/s, one /api/notify in flight); RSS %.1f MB before, max %.1f MB sampled (%d samples; max %.1f MB in the first half, %.1f MB in the second), VmHWM %.1f MB\n",
		len(loadLat), *devices, pushes, loadSecs, float64(pushes)/loadSecs, mb(rss0), mb(maxRSS), samples, mb(halves[0]), mb(halves[1]), mb(hwm))

	// Fan-out to 100 devices.
	d.register(*devices, *fanDevices, *sink)
	for range 3 {
		d.notify("bench fan-out warm-up", *fanDevices)
	}
	sink1 := sinkRequests(*sink)
	var fan []time.Duration
	for i := range *fanCalls {
		fan = append(fan, d.notify(fmt.Sprintf("bench fan-out %d", i), *fanDevices))
	}
	if got, want := sinkRequests(*sink)-sink1, *fanCalls**fanDevices; got != want {
		fatalf("sink got %d pushes during the fan-out phase, want %d", got, want)
	}
	slices.Sort(fan)
	med, p90, worst := fan[len(fan)/2], fan[len(fan)*9/10], fan[len(fan)-1]
	fmt.Printf("daemon fan-out: 1 notification → %d devices via POST /api/notify (store read, sends concurrent up to the deliverer's bound, outcomes written to SQLite): median %.1f ms, p90 %.1f ms, max %.1f ms over %d calls\n",
		*fanDevices, ms(med), ms(p90), ms(worst), len(fan))
	fmt.Printf("RESULT name=daemon rss_max_mb=%.1f vmhwm_mb=%.1f rss_start_mb=%.1f rss_first_half_mb=%.1f rss_second_half_mb=%.1f load_pushes=%d load_pushes_per_s=%.0f fanout_devices=%d fanout_median_ms=%.1f fanout_p90_ms=%.1f fanout_max_ms=%.1f\n",
		mb(maxRSS), mb(hwm), mb(rss0), mb(halves[0]), mb(halves[1]), pushes, float64(pushes)/loadSecs, *fanDevices, ms(med), ms(p90), ms(worst))
}

func mb(kb int) float64          { return float64(kb) / 1024 }
func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

type daemonClient struct {
	api, token string
	http       *http.Client
}

func (d *daemonClient) post(path string, body any) (int, []byte) {
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, d.api+path, bytes.NewReader(b))
	req.Header.Set("Authorization", "Bearer "+d.token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := d.http.Do(req)
	if err != nil {
		fatalf("POST %s: %v", path, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, data
}

// register adds devices from..to-1, each with its own valid P-256 key and
// auth secret and an endpoint on the sink.
func (d *daemonClient) register(from, to int, sink string) {
	for i := from; i < to; i++ {
		_, p256dh, auth := newUserAgent()
		body := map[string]any{
			"endpoint": fmt.Sprintf("%s/push/device-%d", sink, i),
			"keys":     map[string]string{"p256dh": p256dh, "auth": auth},
			"name":     "bench-" + strconv.Itoa(i),
		}
		if st, data := d.post("/api/push/subscribe", body); st != http.StatusCreated {
			fatalf("register device %d: %d %s", i, st, data)
		}
	}
}

// notify POSTs /api/notify and returns how long the answer took; every
// device must have taken the message.
func (d *daemonClient) notify(msg string, devices int) time.Duration {
	start := time.Now()
	st, data := d.post("/api/notify", map[string]string{"message": msg})
	took := time.Since(start)
	var out struct {
		Sent   bool   `json:"sent"`
		Detail string `json:"detail"`
	}
	if st != http.StatusOK || json.Unmarshal(data, &out) != nil || !out.Sent || strings.Contains(out.Detail, "failed") {
		fatalf("/api/notify to %d devices: %d %s", devices, st, data)
	}
	return took
}

// procStatusKB reads a "Name:   N kB" line of /proc/PID/status.
func procStatusKB(pid int, name string) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		fatalf("daemon process %d: %v", pid, err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, name+":"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			return n
		}
	}
	return 0
}

func sinkRequests(sink string) int {
	resp, err := http.Get(sink + "/stats")
	if err != nil {
		fatalf("sink: %v", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	for _, f := range strings.Fields(string(b)) {
		if v, ok := strings.CutPrefix(f, "requests="); ok {
			n, _ := strconv.Atoi(v)
			return n
		}
	}
	fatalf("sink /stats: %q", b)
	return 0
}
