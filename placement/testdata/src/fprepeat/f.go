package fprepeat

// Marks: `// grow K` — the line's access of kind K (R or W) may grow
// its footprint's range; `// repeat K` — it accesses an element a site
// before it in the iteration accessed (FootprintSite.Repeat).

func merge(dst, a, b []int) {
	i, j, k := 0, 0, 0
	for i < len(a) && j < len(b) {
		if a[i] <= b[j] { // grow R
			dst[k] = a[i] // repeat R
			i++
		} else {
			dst[k] = b[j] // repeat R
			j++
		}
		k++
	}
}

func branches(s []int) {
	for i := range s {
		if i%2 == 0 {
			s[i] = 1 // grow W
		} else {
			s[i] = 2 // grow W
		}
	}
}

func rows(m [][]int) int {
	t := 0
	for i := range m {
		for j := 0; j < len(m[i]); j++ {
			if m[i][j] < 0 { // grow R
				continue
			}
			t += m[i][j] // repeat R
		}
	}
	return t
}

func moved(s []int) int {
	t := 0
	for i := 0; i+1 < len(s); i++ {
		t += s[i] // grow R
		i++
		t += s[i] // grow R
	}
	return t
}

func consts(a *[4]uint64, n int) uint64 {
	t := uint64(0)
	for i := 0; i < n; i++ {
		t += a[1] // grow R
		t *= a[1] // repeat R
	}
	return t
}

func insertion(a []int) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j-1] > a[j]; j-- { // grow R
			a[j-1], a[j] = a[j], a[j-1] // repeat R
		}
	}
}
