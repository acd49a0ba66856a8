package hook

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// deletion is a byte range [from, to) of a text to cut out.
type deletion struct{ from, to int64 }

// applyDeletions returns b without the ranges, which must not overlap.
func applyDeletions(b []byte, dels []deletion) []byte {
	dels = slices.Clone(dels)
	slices.SortFunc(dels, func(x, y deletion) int { return int(y.from - x.from) })
	out := append([]byte(nil), b...)
	for _, d := range dels { // from the end backwards, so offsets stay true
		out = append(out[:d.from], out[d.to:]...)
	}
	return out
}

// itemStart returns where item i of a container begins: past the
// whitespace and comma after the previous item (or after the opening
// bracket).
func itemStart(b []byte, open int64, ends []int64, i int) int64 {
	off := open
	if i > 0 {
		off = ends[i-1]
	}
	for off < int64(len(b)) && (isJSONSpace(b[off]) || b[off] == ',') {
		off++
	}
	return off
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// cutItems returns the deletions that take items del (ascending indices)
// out of a container of n items that opens at open and whose items end at
// ends, leaving valid JSON and the layout of the rest. Taking the last
// item out undoes appendText's insertion byte for byte; taking every item
// out leaves "{}" or "[]".
func cutItems(b []byte, open int64, ends []int64, del []int) []deletion {
	n := len(ends)
	if len(del) == 0 {
		return nil
	}
	if len(del) == n {
		end := ends[n-1]
		for end < int64(len(b)) && isJSONSpace(b[end]) {
			end++
		}
		return []deletion{{open, end}}
	}
	kept := 0 // the first item kept
	for kept < n && slices.Contains(del, kept) {
		kept++
	}
	var out []deletion
	for _, i := range del {
		if i < kept {
			// Before the first kept item: the item, its comma and the
			// whitespace up to the next one.
			out = append(out, deletion{itemStart(b, open, ends, i), itemStart(b, open, ends, i+1)})
		} else {
			// After a kept item: the comma, the whitespace and the item.
			out = append(out, deletion{ends[i-1], ends[i]})
		}
	}
	return out
}

// planJSONRemoval takes out of the settings' "hooks" every hook entry that
// runs `attn hook <agent>`, then every group and event list that this
// leaves empty, and "hooks" itself when nothing else is left in it. Every
// other byte stays; a file left as an empty object is removed (it was
// attn's alone). A file attn cannot parse is refused.
func (in *Install) planJSONRemoval() error {
	in.After = in.Before
	if len(bytes.TrimSpace(in.Before)) == 0 {
		return nil
	}
	v, err := decodeOrdered(in.Before)
	if err != nil {
		return fmt.Errorf("%s is not valid JSON (%v): attn leaves it alone; fix it, then run `%s` again", in.Display, err, in.again())
	}
	root, ok := v.(*jobject)
	if !ok {
		return fmt.Errorf("%s holds a JSON %s, not an object: attn leaves it alone", in.Display, kindOf(v))
	}
	hi := slices.IndexFunc(root.members, func(m jmember) bool { return m.key == "hooks" })
	if hi < 0 {
		return nil
	}
	hooks, ok := root.members[hi].val.(*jobject)
	if !ok {
		return nil // no hooks of attn's can be there
	}
	var dels []deletion
	var emptied []int // event lists left empty
	for mi, m := range hooks.members {
		groups, ok := m.val.(*jarray)
		if !ok {
			continue
		}
		var inner []deletion
		var gone []int // groups left empty
		for gi, g := range groups.elems {
			group, ok := g.(*jobject)
			if !ok {
				continue
			}
			lv, _ := group.get("hooks")
			list, ok := lv.(*jarray)
			if !ok {
				continue
			}
			var attn []int
			for i, h := range list.elems {
				if hk, ok := h.(*jobject); ok {
					if c, _ := hk.get("command"); isAttnHook(c, in.Agent) {
						attn = append(attn, i)
					}
				}
			}
			switch {
			case len(attn) == 0:
			case len(attn) == len(list.elems):
				gone = append(gone, gi)
			default:
				inner = append(inner, cutItems(in.Before, list.open, list.ends, attn)...)
			}
		}
		if len(gone) > 0 && len(gone) == len(groups.elems) {
			emptied = append(emptied, mi)
			continue
		}
		dels = append(dels, inner...)
		dels = append(dels, cutItems(in.Before, groups.open, groups.ends, gone)...)
	}
	if len(emptied) > 0 && len(emptied) == len(hooks.members) {
		dels = cutItems(in.Before, root.open, root.ends, []int{hi})
	} else {
		dels = append(dels, cutItems(in.Before, hooks.open, hooks.ends, emptied)...)
	}
	in.After = applyDeletions(in.Before, dels)
	after, err := decodeOrdered(in.After)
	if err != nil { // cannot happen
		return fmt.Errorf("attn's edit of %s would not be valid JSON (%v): nothing written; please report this", in.Display, err)
	}
	if o, ok := after.(*jobject); ok && len(o.members) == 0 && len(dels) > 0 {
		in.Remove = true
	}
	return nil
}

// checkJSON says whether the settings run `attn hook <agent>` for each of
// events: "installed", "partly installed" (detail: the missing events),
// "not installed", or "unreadable" (detail: why).
func (in *Install) checkJSON(events []string) (state, detail string) {
	if len(bytes.TrimSpace(in.Before)) == 0 {
		return StateNotInstalled, ""
	}
	v, err := decodeOrdered(in.Before)
	if err != nil {
		return StateUnreadable, fmt.Sprintf("not valid JSON (%v): attn will not edit it until it is fixed", err)
	}
	root, ok := v.(*jobject)
	if !ok {
		return StateUnreadable, fmt.Sprintf("holds a JSON %s, not an object", kindOf(v))
	}
	var have, missing []string
	hv, present := root.get("hooks")
	hooks, ok := hv.(*jobject)
	if present && !ok && hv != nil {
		// install refuses such a file; status must not send the person there.
		return StateUnreadable, fmt.Sprintf("its \"hooks\" is a JSON %s, not an object: attn will not edit it until it is fixed", kindOf(hv))
	}
	for _, event := range events {
		var groups *jarray
		if hooks != nil {
			gv, present := hooks.get(event)
			groups, ok = gv.(*jarray)
			if present && !ok && gv != nil {
				return StateUnreadable, fmt.Sprintf("its hooks.%s is a JSON %s, not a list: attn will not edit it until it is fixed", event, kindOf(gv))
			}
		}
		if groups != nil && hasAttnHook(groups, in.Agent) {
			have = append(have, event)
		} else {
			missing = append(missing, event)
		}
	}
	switch {
	case len(missing) == 0:
		return StateInstalled, ""
	case len(have) == 0:
		return StateNotInstalled, ""
	}
	return StatePartial, "missing " + strings.Join(missing, ", ")
}

// codexNotifyLine finds the top-level notify line of config.toml: its
// index in lines, and whether it runs `attn hook codex`; -1 when there is
// none. It reports an error for a file whose strings or arrays do not end.
func (in *Install) codexNotifyLine(lines []string) (int, bool, error) {
	var ml string
	depth := 0
	for i, line := range lines {
		if ml == "" && depth == 0 {
			if tomlHeader.MatchString(line) {
				break
			}
			if tomlNotify.MatchString(line) {
				value := strings.TrimSpace(line[strings.Index(line, "=")+1:])
				args := tomlStrings(value)
				return i, len(args) >= 3 && filepath.Base(args[0]) == "attn" && args[1] == "hook" && args[2] == AgentCodex, nil
			}
		}
		ml, depth = tomlScan(line, ml, depth)
	}
	if ml != "" || depth != 0 {
		return -1, false, fmt.Errorf("%s has an unterminated string or array: attn leaves it alone; fix it, then run `%s` again", in.Display, in.again())
	}
	return -1, false, nil
}

// planCodexRemoval takes attn's notify line out of config.toml, and the
// blank line attn put after it above a table header. A notify running
// another program is left alone.
func (in *Install) planCodexRemoval() error {
	in.After = in.Before
	lines := strings.SplitAfter(string(in.Before), "\n")
	i, ours, err := in.codexNotifyLine(lines)
	if err != nil || !ours {
		return err
	}
	cut := 1
	if i+2 < len(lines) && strings.TrimSpace(lines[i+1]) == "" && tomlHeader.MatchString(lines[i+2]) {
		cut = 2
	}
	in.After = []byte(strings.Join(lines[:i], "") + strings.Join(lines[i+cut:], ""))
	if len(bytes.TrimSpace(in.After)) == 0 {
		in.Remove = true
	}
	return nil
}

// checkCodex says whether config.toml's notify runs attn's hook.
func (in *Install) checkCodex() (state, detail string) {
	i, ours, err := in.codexNotifyLine(strings.SplitAfter(string(in.Before), "\n"))
	switch {
	case err != nil:
		return StateUnreadable, "an unterminated string or array"
	case ours:
		return StateInstalled, ""
	case i >= 0:
		return StateNotInstalled, "notify runs another program (Codex runs only one): replace it with " + codexNotify
	}
	return StateNotInstalled, ""
}
