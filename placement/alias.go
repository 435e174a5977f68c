package placement

import (
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/ssa"
)

// aliases computes the alias facts x = y.f of §3.4 of Rhodes' thesis
// (the BigFoot paper's static field proxies and alias facts) as a forward must-analysis of available loads: a load of a
// location already loaded on every path, with no intervening store that may
// alias it, no call and no synchronization, yields the same value as the
// earlier load (assuming the program is race-free, as the thesis does). The
// result maps each such later load to the earlier one; since SSA values
// never change, the equality then holds wherever both are in scope, and
// paths based on either use the earlier one (see canonical).
//
// May-alias for stores is type-based: a store kills the loads of values of
// an identical type and the loads under the stored location. Programs that
// defeat Go's type system with unsafe can break this, as a racy write can
// (the thesis's trace-precise-but-not-address-precise caveat).
func (a *analysis) aliases() map[ssa.Value]ssa.Value {
	type load struct {
		v ssa.Value
		t types.Type
	}
	type avail map[string]load
	in := make(map[*ssa.BasicBlock]avail)
	canon := make(map[ssa.Value]ssa.Value)
	transfer := func(b *ssa.BasicBlock, cur avail, final bool) avail {
		out := make(avail, len(cur))
		for k, v := range cur {
			out[k] = v
		}
		killAll := func() {
			for k := range out {
				delete(out, k)
			}
		}
		for _, instr := range b.Instrs {
			switch in := instr.(type) {
			case *ssa.UnOp:
				if in.Op == token.ARROW {
					killAll()
				}
				if in.Op != token.MUL {
					continue
				}
				p, local := pathOf(in.X, a.n, nil)
				if local {
					continue
				}
				k := p.Key()
				if l, ok := out[k]; ok {
					if final {
						canon[in] = l.v
					}
				} else {
					out[k] = load{in, in.Type()}
				}
			case *ssa.Store:
				p, local := pathOf(in.Addr, a.n, nil)
				if local {
					continue
				}
				k := p.Key()
				t := in.Val.Type()
				for lk, l := range out {
					if lk == k || strings.HasPrefix(lk, k+".") || strings.HasPrefix(lk, k+"[") ||
						types.Identical(l.t, t) {
						delete(out, lk)
					}
				}
			case *ssa.Call:
				if b, ok := in.Call.Value.(*ssa.Builtin); ok {
					switch b.Name() {
					case "copy", "clear", "append":
						killAll()
					}
					continue
				}
				if fn := in.Call.StaticCallee(); fn != nil && isPure(fn) {
					continue
				}
				killAll()
			case *ssa.Go, *ssa.Send, *ssa.Select, *ssa.RunDefers:
				killAll()
			}
		}
		return out
	}
	meet := func(b *ssa.BasicBlock, outs map[*ssa.BasicBlock]avail) (avail, bool) {
		var res avail
		for _, p := range b.Preds {
			o, ok := outs[p]
			if !ok {
				continue // ⊤
			}
			if res == nil {
				res = make(avail, len(o))
				for k, v := range o {
					res[k] = v
				}
				continue
			}
			for k, v := range res {
				if w, ok := o[k]; !ok || w.v != v.v {
					delete(res, k)
				}
			}
		}
		return res, res != nil
	}
	outs := make(map[*ssa.BasicBlock]avail)
	for changed, rounds := true, 0; changed && rounds < 20; rounds++ {
		changed = false
		for _, b := range a.fn.Blocks {
			var cur avail
			if b.Index == 0 || b == a.fn.Recover {
				cur = avail{}
			} else {
				var ok bool
				if cur, ok = meet(b, outs); !ok {
					continue
				}
			}
			in[b] = cur
			o := transfer(b, cur, false)
			if old, ok := outs[b]; !ok || len(old) != len(o) || !sameAvail(old, o) {
				outs[b] = o
				changed = true
			}
		}
		if rounds == 19 {
			return nil // no fixed point: no alias facts
		}
	}
	for _, b := range a.fn.Blocks {
		if cur, ok := in[b]; ok {
			transfer(b, cur, true)
		}
	}
	return canon
}

func sameAvail[M ~map[string]V, V comparable](x, y M) bool {
	for k, v := range x {
		if w, ok := y[k]; !ok || w != v {
			return false
		}
	}
	return true
}
