package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
)

// An ordered JSON document, for editing a person's settings file without
// reordering its keys or rewriting its numbers: objects are *jobject,
// arrays *jarray, numbers json.Number; other values string, bool and nil.
// Decoded containers remember where they open and where each element
// ends in the text, so that an edit can insert after the last one, or cut
// one out, and leave every other byte alone.
type (
	jobject struct {
		members []jmember
		end     int64   // offset just after the last member, or after "{"
		open    int64   // offset just after "{"
		ends    []int64 // offset just after each member (decoded objects only)
	}
	jmember struct {
		key string
		val any
	}
	jarray struct {
		elems []any
		end   int64   // offset just after the last element, or after "["
		open  int64   // offset just after "["
		ends  []int64 // offset just after each element (decoded arrays only)
	}
)

// get returns the value of key and whether it is present.
func (o *jobject) get(key string) (any, bool) {
	for _, m := range o.members {
		if m.key == key {
			return m.val, true
		}
	}
	return nil, false
}

// obj builds an object from key, value pairs.
func obj(kv ...any) *jobject {
	o := &jobject{}
	for i := 0; i+1 < len(kv); i += 2 {
		o.members = append(o.members, jmember{kv[i].(string), kv[i+1]})
	}
	return o
}

// decodeOrdered reads one JSON value, keeping object member order and
// text offsets.
func decodeOrdered(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return nil, jsonPos(b, dec, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, jsonPos(b, dec, errors.New("more than one JSON value"))
	}
	return v, nil
}

func decodeValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := &jobject{end: dec.InputOffset(), open: dec.InputOffset()}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				o.members = append(o.members, jmember{kt.(string), v})
				o.end = dec.InputOffset()
				o.ends = append(o.ends, o.end)
			}
			_, err := dec.Token() // '}'
			return o, err
		case '[':
			a := &jarray{end: dec.InputOffset(), open: dec.InputOffset()}
			for dec.More() {
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				a.elems = append(a.elems, v)
				a.end = dec.InputOffset()
				a.ends = append(a.ends, a.end)
			}
			_, err := dec.Token() // ']'
			return a, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	default:
		return t, nil // string, json.Number, bool, nil
	}
}

// jsonPos adds the line of a decoding error.
func jsonPos(b []byte, dec *json.Decoder, err error) error {
	off := dec.InputOffset()
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off = se.Offset
	}
	if off > int64(len(b)) {
		off = int64(len(b))
	}
	line := 1 + bytes.Count(b[:off], []byte("\n"))
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		err = errors.New("unexpected end of file")
	}
	return fmt.Errorf("line %d: %v", line, err)
}

// encodeOrdered writes v as indented JSON, indent being one level's
// whitespace, with a final newline.
func encodeOrdered(v any, indent string) []byte {
	var buf bytes.Buffer
	writeValue(&buf, v, indent, 0)
	buf.WriteByte('\n')
	return buf.Bytes()
}

func writeValue(buf *bytes.Buffer, v any, indent string, depth int) {
	nl := func(d int) {
		buf.WriteByte('\n')
		buf.WriteString(strings.Repeat(indent, d))
	}
	switch t := v.(type) {
	case *jobject:
		if len(t.members) == 0 {
			buf.WriteString("{}")
			return
		}
		buf.WriteByte('{')
		for i, m := range t.members {
			if i > 0 {
				buf.WriteByte(',')
			}
			nl(depth + 1)
			writeString(buf, m.key)
			buf.WriteString(": ")
			writeValue(buf, m.val, indent, depth+1)
		}
		nl(depth)
		buf.WriteByte('}')
	case *jarray:
		if len(t.elems) == 0 {
			buf.WriteString("[]")
			return
		}
		buf.WriteByte('[')
		for i, e := range t.elems {
			if i > 0 {
				buf.WriteByte(',')
			}
			nl(depth + 1)
			writeValue(buf, e, indent, depth+1)
		}
		nl(depth)
		buf.WriteByte(']')
	case string:
		writeString(buf, t)
	case json.Number:
		buf.WriteString(t.String())
	case bool:
		if t {
			buf.WriteString("true")
		} else {
			buf.WriteString("false")
		}
	case nil:
		buf.WriteString("null")
	default:
		panic(fmt.Sprintf("hook: cannot encode %T", v))
	}
}

// insertion is text to insert at an offset of a JSON text.
type insertion struct {
	at   int64
	text string
}

// appendMember returns the insertion that adds key: val as the last member
// of o, an object at nesting depth depth of a text indented with indent.
func appendMember(o *jobject, key string, val any, indent string, depth int) insertion {
	var buf bytes.Buffer
	writeString(&buf, key)
	buf.WriteString(": ")
	writeValue(&buf, val, indent, depth+1)
	return appendText(o.end, len(o.members) == 0, buf.String(), indent, depth)
}

// appendElem returns the insertion that adds val as the last element of a,
// an array at nesting depth depth.
func appendElem(a *jarray, val any, indent string, depth int) insertion {
	var buf bytes.Buffer
	writeValue(&buf, val, indent, depth+1)
	return appendText(a.end, len(a.elems) == 0, buf.String(), indent, depth)
}

func appendText(at int64, empty bool, item, indent string, depth int) insertion {
	inner := "\n" + strings.Repeat(indent, depth+1) + item
	if empty {
		return insertion{at, inner + "\n" + strings.Repeat(indent, depth)}
	}
	return insertion{at, "," + inner}
}

// applyInsertions returns b with every insertion made; insertions at one
// offset land in the order given.
func applyInsertions(b []byte, ins []insertion) []byte {
	ins = slices.Clone(ins)
	slices.Reverse(ins)
	// From the end backwards, so that offsets stay true; a later insertion
	// at the same offset goes first, to end up after the earlier one.
	sort.SliceStable(ins, func(i, j int) bool { return ins[i].at > ins[j].at })
	out := append([]byte(nil), b...)
	for _, in := range ins {
		out = append(out[:in.at], append([]byte(in.text), out[in.at:]...)...)
	}
	return out
}

func writeString(buf *bytes.Buffer, s string) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // keep "<", ">", "&" as the person wrote them
	enc.Encode(s)
	buf.Write(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}

// indentOf returns the whitespace one nesting level uses in a JSON text:
// that of its first indented line; two spaces when none is.
func indentOf(b []byte) string {
	for _, line := range strings.Split(string(b), "\n") {
		trimmed := strings.TrimLeft(line, " \t")
		if trimmed != "" && len(trimmed) < len(line) {
			return line[:len(line)-len(trimmed)]
		}
	}
	return "  "
}
