// Package balancerregistry is modelled on grpc/grpc-go#1973 (data race between new
// balancer Register() and Get() functions): etcd's client registered its
// balancer in grpc's package-level map while other clients looked
// balancers up in it. The fixed twin (grpc/grpc-go#1974) registers once,
// before any lookup, in an init step.
package balancerregistry

import (
	"testing"
)

type builder struct{ name string }

var registry = map[string]*builder{}

func register(b *builder) { registry[b.name] = b }

func get(name string) *builder { return registry[name] }

func TestRaceBalancerRegister(t *testing.T) {
	registry = map[string]*builder{"pick_first": {"pick_first"}}
	done := make(chan struct{})
	go func() { defer close(done); register(&builder{"etcd"}) }()
	_ = get("pick_first")
	<-done
}

func TestNoRaceBalancerRegister(t *testing.T) {
	registry = map[string]*builder{"pick_first": {"pick_first"}}
	register(&builder{"etcd"})
	done := make(chan *builder)
	go func() { done <- get("etcd") }()
	if <-done == nil {
		t.Fatal("etcd balancer not found")
	}
}
