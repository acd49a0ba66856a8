// Package hosts knows the machines attn reaches: its own, named by its
// hostname (with "local" as an alias, or as its name when an SSH alias
// answers to the hostname: see Naming), and the concrete aliases of the
// user's SSH config (ReadSSHConfig: Include followed, wildcards and Match
// blocks skipped). Other hosts are reached with the system ssh in batch
// mode over one shared connection per host (SSH). A Manager probes each
// host in its own goroutine with a timeout, lists them at once whatever
// the probes are doing (Listing.Probing says which are still unknown),
// gives a reachable host's tmux client (Client), and runs a per-host
// function (the screen watcher) while a host is reachable.
package hosts
