package detector

import "github.com/bigfoot-go/bigfoot/shadow"

func init() { shadow.DebugGetg = getg }
