// Package allocatable is modelled on kubernetes/kubernetes#48045 (kubelet race
// condition: concurrent map writes): GetNodeAllocatableReservation added
// the scratch-space reservation into the capacity map it shared with the
// node status updater, which read the map at the same time. The fixed
// twin adds into a copy.
package allocatable

import (
	"sync"
	"testing"
)

type resources map[string]int64

type containerManager struct {
	capacity resources
}

func (cm *containerManager) reservationShared() resources {
	r := cm.capacity
	r["ephemeral-storage"] -= 1 << 20
	return r
}

func (cm *containerManager) reservationCopy() resources {
	r := resources{}
	for k, v := range cm.capacity {
		r[k] = v
	}
	r["ephemeral-storage"] -= 1 << 20
	return r
}

func readStatus(cm *containerManager, reserve func() resources) int64 {
	var wg sync.WaitGroup
	var total int64
	wg.Add(1)
	go func() {
		defer wg.Done()
		for _, v := range cm.capacity {
			total += v
		}
	}()
	_ = reserve()
	wg.Wait()
	return total
}

func TestRaceAllocatableMap(t *testing.T) {
	cm := &containerManager{capacity: resources{"cpu": 4, "ephemeral-storage": 1 << 30}}
	readStatus(cm, cm.reservationShared)
}

func TestNoRaceAllocatableMap(t *testing.T) {
	cm := &containerManager{capacity: resources{"cpu": 4, "ephemeral-storage": 1 << 30}}
	if got := readStatus(cm, cm.reservationCopy); got != 4+1<<30 {
		t.Fatalf("total %d", got)
	}
}
