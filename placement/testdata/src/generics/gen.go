// Package generics tests generic functions and types: the analysis runs on
// the instantiations built with ssa.InstantiateGenerics.
package generics

type Box[T any] struct{ v, w T }

func (b *Box[T]) Swap() {
	b.v, b.w = b.w, b.v
} // want "W b.v,b.w"

func Fill[T any](a []T, x T) {
	for i := range a {
		a[i] = x
	}
} // want "W a[0..rangeindex+1]"

func use() {
	b := &Box[int]{}
	b.Swap()
	Fill([]string{"a"}, "b") // want "unpub W slicelit[0]"
}
