package hook

import (
	"bytes"
	_ "embed"
	"fmt"
)

// OpenCodePluginName is the file attn installs in OpenCode's global plugin
// directory (~/.config/opencode/plugins/).
const OpenCodePluginName = "attn.js"

// OpenCodePlugin is the plugin's source: it forwards permission.asked,
// permission.updated, question.asked and session.idle events to `attn hook
// opencode` on standard input, skipping child sessions.
//
//go:embed install_opencode.js
var OpenCodePlugin []byte

// pluginMarker opens every version of attn's plugin: a file without it is
// someone else's.
var pluginMarker = []byte("// attn-opencode-plugin ")

// planPlugin writes the plugin, replacing an older or edited copy of
// attn's, and refuses a file of the same name that attn did not write.
func (in *Install) planPlugin() error {
	if in.Exists && !bytes.HasPrefix(in.Before, pluginMarker) {
		return fmt.Errorf("%s exists and was not written by attn: attn leaves it alone; move it away, then run `%s` again", in.Display, in.again())
	}
	in.After = OpenCodePlugin
	return nil
}

// planPluginRemoval removes attn's plugin, and leaves a file attn did not
// write alone.
func (in *Install) planPluginRemoval() error {
	in.After = in.Before
	if in.Exists && bytes.HasPrefix(in.Before, pluginMarker) {
		in.After, in.Remove = nil, true
	}
	return nil
}

// checkPlugin says whether the plugin is attn's current one.
func (in *Install) checkPlugin() (state, detail string) {
	switch {
	case !in.Exists:
		return StateNotInstalled, ""
	case bytes.Equal(in.Before, OpenCodePlugin):
		return StateInstalled, ""
	case bytes.HasPrefix(in.Before, pluginMarker):
		return StatePartial, "an older or edited copy of attn's plugin: `attn integration install opencode` replaces it"
	}
	return StateUnreadable, "a file attn did not write has its name: attn leaves it alone"
}
