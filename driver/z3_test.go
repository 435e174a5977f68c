package driver

import (
	"strings"
	"testing"
)

func TestCheckZ3(t *testing.T) {
	err := CheckZ3()
	if err != nil && !strings.Contains(err.Error(), "apt-get install -y libz3-dev") {
		t.Errorf("CheckZ3 error does not say how to install libz3: %v", err)
	}
	t.Logf("CheckZ3() = %v", err)
}
