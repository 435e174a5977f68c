package mode

import (
	"flag"
	"io"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	for _, m := range All {
		var got Mode
		if err := got.Set(m.String()); err != nil {
			t.Fatalf("Set(%q): %v", m, err)
		}
		if got != m {
			t.Errorf("Set(%q) = %v", m, got)
		}
		if !m.Valid() {
			t.Errorf("%v is not Valid", m)
		}
	}
	if len(All) != len(names) {
		t.Errorf("All lists %d modes, there are %d", len(All), len(names))
	}
	if All[0] != Default || Default != BigFoot {
		t.Errorf("All[0] = %v, Default = %v; want bigfoot first", All[0], Default)
	}
	if Mode(0) != FastTrack {
		t.Errorf("the zero Mode is %v, want fasttrack", Mode(0))
	}
}

func TestSetInvalid(t *testing.T) {
	m := RedCard
	for _, s := range []string{"", "BigFoot", "race", "plain", "fast track"} {
		if err := m.Set(s); err == nil {
			t.Errorf("Set(%q) succeeded", s)
		}
		if m != RedCard {
			t.Errorf("a failed Set(%q) changed the mode to %v", s, m)
		}
	}
	if Mode(-1).Valid() || Mode(len(names)).Valid() {
		t.Error("out-of-range modes are Valid")
	}
	if s := Mode(9).String(); s != "mode(9)" {
		t.Errorf("Mode(9).String() = %q", s)
	}
}

func TestFlag(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	m := Default
	fs.Var(&m, "mode", "")
	if err := fs.Parse([]string{"-mode=slimstate"}); err != nil || m != SlimState {
		t.Fatalf("-mode=slimstate: %v, %v", m, err)
	}
	if err := fs.Parse([]string{"-mode", "nosuch"}); err == nil {
		t.Fatal("-mode nosuch accepted")
	}
}

// TestMethods is the table of what each mode emits (docs/instrument.md,
// "Modes").
func TestMethods(t *testing.T) {
	type row struct{ drops, groups, footprints, ranges, safe, plans bool }
	want := map[Mode]row{
		FastTrack: {},
		RedCard:   {drops: true, plans: true},
		SlimState: {footprints: true},
		BigFoot:   {drops: true, groups: true, footprints: true, ranges: true, safe: true, plans: true},
	}
	for _, m := range All {
		got := row{m.DropsRedundant(), m.Groups(), m.Footprints(), m.StaticRanges(), m.SafeClass(), m.Plans()}
		if got != want[m] {
			t.Errorf("%v: got %+v, want %+v", m, got, want[m])
		}
	}
	if got := Names(); got != "bigfoot, fasttrack, redcard, slimstate" {
		t.Errorf("Names() = %q", got)
	}
}
